"""kokoro-onnx, the runtime most local Kokoro users pick, as a second speaker for the judges.

It runs in its own virtual environment (created on first use, `pip install kokoro-onnx==0.6.1`)
through peer_worker.py, with the same int8 model file and voice as the local server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.common import BenchError

PEER = "kokoro-onnx==0.6.1"
DEFAULT_VENV = Path.home() / ".cache" / "kokoro-voice-agent" / "kokoro-onnx-0.6.1"
WORKER = Path(__file__).with_name("peer_worker.py")


def peer_python(venv: Path) -> Path:
    """The peer's interpreter, creating its virtual environment on first use."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"Creating {venv} for {PEER} ...")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([python, "-c", "import kokoro_onnx"], capture_output=True).returncode:
        print(f"Installing {PEER} into {venv} ...")
        subprocess.run([python, "-m", "pip", "install", "--quiet", PEER], check=True)
    return python


def model_and_voice() -> tuple[Path, Path, str]:
    """The files and voice the local server uses (same KOKORO_* settings, same weights)."""
    import numpy as np

    from kokoro_server.config import Settings
    from kokoro_server.engine.model_files import locate

    settings = Settings.from_env()
    files = locate(settings.model_dir, settings.model_file)
    with np.load(files.voices) as voices:
        voice = settings.default_voice or next(iter(voices.files))
    return files.model, files.voices, voice


class Peer:
    """kokoro-onnx in its own interpreter, one text per request."""

    def __init__(self, python: Path, model: Path, voices: Path, voice: str, out: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), str(WORKER), str(model), str(voices), voice, str(out)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def speak(self, text: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(text) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise BenchError(f"kokoro-onnx worker ended (exit {self.process.wait()})")
        result: dict[str, Any] = json.loads(line)
        return result

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)

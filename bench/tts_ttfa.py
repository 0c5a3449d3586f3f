"""Benchmark 1: time to first audio, batch vs streaming, on the real model.

Modes (the paragraph: devkit.text.PARAGRAPH, 267 characters, 4 sentences):
  (a)  batch: POST /invocations, whole paragraph, pcm; the body arrives when all is done
       (the server splits by sentence internally, as a non-streaming client would wait for)
  (a') engine: the whole paragraph as ONE model call in process (the public "send the whole
       text" case; the engine only splits beyond 510 phonemes)
  (b)  stream: the whole paragraph in one bidirectional message; the server segments
  (c)  stream: LLM-like deltas at a fixed token rate; TTFA from the first delta
  (d)  stream: only the first sentence (the public experiment's comparison)
  and the raw engine on the first sentence, so the server's own overhead is TTFA(b) minus it.

    python -m bench.tts_ttfa [--runs N] [--quick] [--tokens-per-s 40] [--base-url URL]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench import plots
from bench.audible import first_sound_s
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
    summaries,
)
from devkit.stats import summarize
from devkit.text import llm_deltas
from kokoro_server.model_facts import SAMPLE_RATE
from kokoro_server.text.segmenter import SentenceSegmenter

NAME = "tts_ttfa"
PUBLIC_REFERENCE = {
    "source": "Kokoro-82M on SageMaker ml.g5.xlarge, public experiment, 5 runs per mode",
    "whole_text_ttfa_ms": 329.3,
    "first_sentence_ttfa_ms": 156.7,
    "first_sentence_over_whole": round(156.7 / 329.3, 3),
}


def sentences_of(text: str) -> list[str]:
    """The paragraph's sentences, as the server's own segmenter cuts them."""
    segmenter = SentenceSegmenter(first_clause=False)
    pieces: list[str] = [*segmenter.feed(text), *segmenter.flush()]
    return pieces


def stream_sample(result: Any) -> Sample:
    if result.errors:
        raise BenchError(f"server errors: {result.errors}")
    if result.first_audio_s is None:
        raise BenchError("the stream returned no audio")
    return {
        "ttfa_s": result.first_audio_s,
        "first_sound_s": first_sound_s(result.first_audio_s, result.audio, SAMPLE_RATE),
        "total_s": result.total_s,
        "audio_s": sum(s.complete.get("duration_s", 0.0) for s in result.sentences),
        "sentences": len(result.sentences),
        "first_piece": result.sentences[0].text if result.sentences else None,
        "sentence_first_byte_s": [s.first_byte_s for s in result.sentences],
        "synth_ms": [s.complete.get("synth_ms") for s in result.sentences],
    }


def build_modes(
    target: Target, paragraph: str, first: str, tokens_per_s: float, engine: Any
) -> tuple[dict[str, RunOnce], dict[str, str]]:
    deltas = llm_deltas(paragraph)

    async def batch() -> Sample:
        res = await target.one_shot(paragraph, format="pcm", sample_rate=SAMPLE_RATE)
        audio_s = float(res.headers.get("x-audio-duration-s", "0") or 0)
        return {
            "ttfa_s": res.first_byte_s,
            "first_sound_s": first_sound_s(res.first_byte_s, res.audio, SAMPLE_RATE),
            "total_s": res.total_s,
            "audio_s": audio_s,
        }

    async def stream_whole() -> Sample:
        return stream_sample(await target.stream([paragraph]))

    async def stream_deltas() -> Sample:
        res = await target.stream(deltas, tokens_per_s=tokens_per_s)
        return stream_sample(res)

    async def first_sentence() -> Sample:
        return stream_sample(await target.stream([first]))

    modes: dict[str, RunOnce] = {"batch": batch}
    labels = {"batch": "(a) batch: POST /invocations, whole paragraph"}
    if engine is not None:
        from bench.engine_bench import model_calls, synthesize_sample

        async def engine_whole() -> Sample:
            return synthesize_sample(engine, paragraph)

        calls = model_calls(engine, paragraph)
        modes["engine_whole"] = engine_whole
        labels["engine_whole"] = (
            "(a') engine: whole paragraph, one model call"
            if calls == 1
            else f"(a') engine: whole paragraph ({calls} model calls, > 510 phonemes)"
        )
    modes |= {
        "stream_whole": stream_whole,
        "stream_deltas": stream_deltas,
        "first_sentence": first_sentence,
    }
    labels |= {
        "stream_whole": "(b) stream: whole paragraph in one message",
        "stream_deltas": f"(c) stream: LLM deltas at {tokens_per_s:g} tokens/s",
        "first_sentence": "(d) stream: first sentence only",
    }
    if engine is not None:

        async def engine_first() -> Sample:
            return synthesize_sample(engine, first)

        modes["engine_first"] = engine_first
        labels["engine_first"] = "engine: first sentence (no server)"
    return modes, labels


def ratio(modes: dict[str, dict[str, Any]], num: str, den: str, label: str) -> dict[str, Any]:
    """Ratios of medians; time to first audio is to the first sound (bench/audible.py)."""
    a, b = modes[num], modes[den]
    return {
        "label": label,
        "ttfa_ratio": a["first_sound"]["median"] / b["first_sound"]["median"],
        "total_ratio": a["total"]["median"] / b["total"]["median"],
    }


def analyse(samples: dict[str, list[Sample]], labels: dict[str, str]) -> dict[str, Any]:
    modes: dict[str, dict[str, Any]] = {
        key: {
            "key": key,
            "label": labels[key],
            **summaries(runs, "ttfa", "first_sound", "total"),
            "audio_s": summarize([s["audio_s"] for s in runs]),
            "samples": runs,
        }
        for key, runs in samples.items()
    }
    ratios = [
        ratio(modes, "stream_whole", "batch", "(b) / (a)"),
        ratio(modes, "stream_deltas", "batch", "(c) / (a)"),
        ratio(modes, "first_sentence", "batch", "(d) / (a)"),
    ]
    overhead = []
    if "engine_whole" in modes:
        ratios.append(
            ratio(modes, "first_sentence", "engine_whole", "(d) / (a') [public experiment: 0.476]")
        )
        ratios.append(ratio(modes, "stream_whole", "engine_whole", "(b) / (a')"))
    if "engine_first" in modes:
        raw = modes["engine_first"]["first_sound"]["median"]
        overhead = [
            {"label": "raw engine, first sentence", "value_s": raw},
            {
                "label": "server overhead: first sound (b) - raw first sentence",
                "value_s": modes["stream_whole"]["first_sound"]["median"] - raw,
            },
            {
                "label": "server overhead: first sound (d) - raw first sentence",
                "value_s": modes["first_sentence"]["first_sound"]["median"] - raw,
            },
        ]
    return {"modes": list(modes.values()), "ratios": ratios, "server_overhead": overhead}


async def measure(args: argparse.Namespace, target: Target, runs: int) -> dict[str, Any]:
    paragraph = read_paragraph()
    sentences = sentences_of(paragraph)
    first = sentences[0]
    engine = None
    if target.same_machine and not args.no_engine:
        from bench.engine_bench import load_engine

        print("Loading the engine in process (raw model timings, no server) ...")
        engine = load_engine()
    modes, labels = build_modes(target, paragraph, first, args.tokens_per_s, engine)
    print(f"{len(modes)} modes, {args.warmup} warm-up round(s), {runs} measured runs, interleaved")
    samples = await run_interleaved(modes, runs, args.warmup)
    providers = engine.providers if engine is not None else None
    result: dict[str, Any] = {
        **result_head(NAME, args, runs, target, providers),
        "text": {
            "chars": len(paragraph),
            "sentences": sentences,
            "first_sentence": first,
            "deltas": len(llm_deltas(paragraph)),
            "tokens_per_s": args.tokens_per_s,
            "phonemes": (
                len(engine.phonemize(paragraph, engine.default_voice).phonemes)
                if engine is not None
                else None
            ),
        },
        "public_reference": PUBLIC_REFERENCE,
    }
    result |= analyse(samples, labels)
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.tts_ttfa", description=__doc__)
    add_common_args(parser, default_runs=5)
    parser.add_argument("--tokens-per-s", type=float, default=40.0, help="LLM rate for (c)")
    parser.add_argument(
        "--no-engine", action="store_true", help="skip the in-process raw engine modes"
    )
    return parser.parse_args(argv)


def plot(png: Path, result: dict[str, Any]) -> None:
    title = f"Kokoro-82M time to first audio ({result['machine']['cpu_model']})"
    plots.timing_bars(png, title, result["modes"])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def measured() -> dict[str, Any]:
        if args.tokens_per_s <= 0:
            raise BenchError("--tokens-per-s must be positive")
        return on_target(args, 2, measure)

    return run_benchmark(NAME, args, measured, plot)


if __name__ == "__main__":
    sys.exit(main())

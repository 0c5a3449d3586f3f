"""What word timestamps cost: synthesis with and without the model's durations as an output.

Two engines load the same weights in this process: one from the graph as exported (audio
only), one with the per-token durations added as a second output (what the server runs). Each
sentence of the benchmark paragraph (devkit.text.PARAGRAPH) is synthesized by both, in
alternating order, run after run,
and the time of the whole call (text front end, model, word mapping) is recorded; the second
table pairs the two engines' times for the same sentence in the same run.

    python -m bench.word_timestamps_cost [--runs 10] [--quick]

KOKORO_* variables apply as for the server (provider, threads, model directory), so the same
command measures the GPU image's settings on a GPU machine.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, read_paragraph, write_result
from bench.machine import machine_info
from bench.stats import summarize
from bench.tables import Table, format_text
from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_files import locate
from kokoro_server.serving.synthesis import build_frontend
from kokoro_server.text.segmenter import SentenceSegmenter

NAME = "word_timestamps_cost"


def sentences(text: str) -> list[str]:
    segmenter = SentenceSegmenter(first_clause=False)
    pieces: list[str] = [*segmenter.feed(text), *segmenter.flush()]
    return pieces


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure_synthesis(
    runs: int, warmup: int, texts: list[str]
) -> tuple[dict[str, list[float]], list[str]]:
    settings = Settings.from_env()
    files = locate(settings.model_dir, settings.model_file)
    phonemize = build_frontend(settings, files.vocab)
    engines = {
        "audio only (as exported)": KokoroEngine(settings, files, phonemize, word_timestamps=False),
        "audio + durations -> words": KokoroEngine(settings, files, phonemize),
    }
    if not engines["audio + durations -> words"].word_timestamps:
        raise SystemExit("this model gives no durations; nothing to compare")
    samples: dict[str, list[float]] = {name: [] for name in engines}
    for run in range(warmup + runs):
        order = list(engines.items())
        if run % 2:
            order.reverse()  # neither engine always goes first
        for text in texts:
            for name, engine in order:
                voice = engine.default_voice
                seconds = timed(functools.partial(engine.synthesize_timed, text, voice))
                if run >= warmup:
                    samples[name].append(seconds)
        if run >= warmup:
            print(f"  run {run - warmup + 1}/{runs} done", flush=True)
    return samples, engines["audio only (as exported)"].providers


def table(title: str, samples: dict[str, list[float]], unit: float, label: str) -> Table:
    rows = []
    base = None
    for name, values in samples.items():
        stats = summarize(values)
        base = base or stats["median"]
        rows.append(
            [
                name,
                str(stats["n"]),
                *(f"{stats[k] * unit:.2f}" for k in ("median", "p95", "min", "max")),
                f"{stats['median'] / base:.3f}",
            ]
        )
    headers = ["mode", "samples", "median", "p95", "min", "max", "median ratio"]
    return Table(f"{title} ({label})", headers, rows)


def paired(samples: dict[str, list[float]]) -> dict[str, list[float]]:
    """Same sentence, same run: the extra time and the ratio of the second mode to the first."""
    first, second = samples.values()
    return {
        "extra ms": [(b - a) * 1000 for a, b in zip(first, second, strict=True)],
        "ratio": [b / a for a, b in zip(first, second, strict=True)],
    }


def paired_table(pairs: dict[str, list[float]]) -> Table:
    rows = []
    for name, values in pairs.items():
        stats = summarize(values)
        digits = 1 if name == "extra ms" else 3
        rows.append(
            [name, str(stats["n"])]
            + [f"{stats[k]:.{digits}f}" for k in ("median", "p95", "min", "max")]
        )
    headers = ["with durations vs without", "pairs", "median", "p95", "min", "max"]
    return Table("Paired by sentence and run", headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.word_timestamps_cost")
    parser.add_argument("--runs", type=int, default=10, help="passes over the paragraph")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2 runs: checks the script")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    runs = 2 if args.quick else args.runs
    texts = sentences(read_paragraph())
    print(f"{len(texts)} sentences of the paragraph, {runs} runs, both engines alternating")
    synthesis, providers = measure_synthesis(runs, args.warmup, texts)
    pairs = paired(synthesis)
    tables = [
        table("Synthesis per sentence", synthesis, 1000, "ms"),
        paired_table(pairs),
    ]
    for t in tables:
        print()
        print(format_text(t))
    result = {
        "name": NAME,
        "quick": args.quick,
        "runs": runs,
        "sentences": texts,
        "machine": machine_info(providers),
        "synthesis_s": {k: summarize(v) for k, v in synthesis.items()},
        "paired": {k: summarize(v) for k, v in pairs.items()},
    }
    print(f"\nwrote {write_result(args.results_dir, NAME, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

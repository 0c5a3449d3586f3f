"""The text front end's cost per sentence: normalization alone and the whole front end.

    python -m bench.frontend_bench [--runs 3] [--voice af_heart]     (make frontend-bench)

Every row of the assistant corpus (tests/container/data/en_assistant_corpus.tsv) is cut
into sentences by the server's segmenter, and each sentence goes through the server's
TextFrontend (normalization, heteronyms, espeak-ng G2P) `runs` times after a warm-up pass.
Prints the median and p95 per sentence against the 10 ms budget, as wall time and as the
thread's CPU time, with the load average. A load above the core count marks the run busy:
there the wall time counts the waits for a core, and the CPU time is the cost the front end
adds (the budget's verdict then uses it). Writes bench/results/frontend.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from devkit.speech_corpus import load_frontend, read_corpus
from devkit.stats import percentile
from kokoro_server.text.normalize import normalize
from kokoro_server.text.segmenter import SentenceSegmenter

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "frontend.json"
BUDGET_MS = 10.0


def timed(call: Callable[[str], object], sentences: list[str], runs: int) -> Samples:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        for sentence in sentences:
            begin, begin_cpu = time.perf_counter(), time.thread_time()
            call(sentence)
            cpu.append((time.thread_time() - begin_cpu) * 1000)
            wall.append((time.perf_counter() - begin) * 1000)
    return Samples(wall, cpu)


class Samples(NamedTuple):
    wall_ms: list[float]
    cpu_ms: list[float]


def sentences_of(rows: list[str]) -> list[str]:
    out: list[str] = []
    for row in rows:
        segmenter = SentenceSegmenter(first_clause=False)
        out += [s for s in segmenter.feed(row) + segmenter.flush() if s.strip()]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.frontend_bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--voice", default="af_heart")
    args = parser.parse_args(argv)
    sentences = sentences_of([c.written for c in read_corpus()])
    frontend = load_frontend()
    language = frontend.check_voice(args.voice)

    def whole(sentence: str) -> object:
        try:
            return frontend(sentence, args.voice)
        except (ValueError, AssertionError):  # refused input costs what it cost to refuse
            return None

    for sentence in sentences:  # warm-up: G2P loaded, regular expressions compiled
        whole(sentence)
    load_before = os.getloadavg()[0]
    stages = {
        "normalization": timed(lambda s: normalize(s, language), sentences, args.runs),
        "front end (normalization + G2P)": timed(whole, sentences, args.runs),
    }
    load = max(load_before, os.getloadavg()[0])
    cores = os.cpu_count() or 1
    busy = load > cores
    rows = {
        name: {
            "p50_ms": percentile(v.wall_ms, 50),
            "p95_ms": percentile(v.wall_ms, 95),
            "cpu_p50_ms": percentile(v.cpu_ms, 50),
            "cpu_p95_ms": percentile(v.cpu_ms, 95),
            "cpu_max_ms": max(v.cpu_ms),
        }
        for name, v in stages.items()
    }
    print(f"{len(sentences)} sentences x {args.runs} runs, voice {args.voice}")
    print(f"load average {load:.2f} on {cores} cores" + ("  (busy machine)" if busy else ""))
    print(f"{'stage':<34} {'p50 ms':>7} {'p95 ms':>7} {'cpu p50':>8} {'cpu p95':>8} {'cpu max':>8}")
    for name, r in rows.items():
        print(
            f"{name:<34} {r['p50_ms']:>7.2f} {r['p95_ms']:>7.2f} {r['cpu_p50_ms']:>8.2f} "
            f"{r['cpu_p95_ms']:>8.2f} {r['cpu_max_ms']:>8.2f}"
        )
    whole_row = rows["front end (normalization + G2P)"]
    p95 = whole_row["cpu_p95_ms"] if busy else whole_row["p95_ms"]
    verdict = "held" if p95 <= BUDGET_MS else "EXCEEDED"
    measure = "CPU time (busy machine)" if busy else "wall time"
    print(f"budget {BUDGET_MS:.0f} ms p95 per sentence, {measure}: {verdict} ({p95:.2f} ms)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "sentences": len(sentences),
                "runs": args.runs,
                "load_average": load,
                "cores": cores,
                "busy": busy,
                "voice": args.voice,
                "stages": rows,
                "budget_ms": BUDGET_MS,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

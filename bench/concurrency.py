"""Benchmark 4: simultaneous sessions on one server: time to first audio and throughput.

At each level N (default 1, 2, 4, 8), N sessions open at the same moment and each streams the
whole paragraph in one message. Levels are interleaved run by run. Reported per level: TTFA
p50/p95 over all sessions of all runs, and aggregate audio seconds produced per wall second.
The server's own model time (`synth_ms` of every sentence) is summed too: divided by the wall
time it says how many synthesis threads were busy on average.

    python -m bench.concurrency [--levels 1,2,4,8] [--runs N] [--quick]
                                [--server-env KOKORO_SYNTH_WORKERS=2] [--base-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from bench import plots
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
from bench.engine_bench import server_providers
from bench.machine import machine_info
from bench.stats import median, summarize

NAME = "concurrency"


def parse_levels(raw: str) -> list[int]:
    try:
        levels = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError as exc:
        raise BenchError(f"--levels must be comma-separated integers, got {raw!r}") from exc
    if not levels or any(n < 1 for n in levels):
        raise BenchError(f"--levels needs positive integers, got {raw!r}")
    return sorted(set(levels))


def parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("KOKORO_"):
            raise BenchError(f"--server-env takes KOKORO_NAME=VALUE, got {pair!r}")
        env[key] = value
    return env


def build_modes(target: Target, paragraph: str, levels: list[int]) -> dict[str, RunOnce]:
    def level(n: int) -> RunOnce:
        async def run() -> Sample:
            t0 = time.perf_counter()
            results = await asyncio.gather(*(target.stream([paragraph]) for _ in range(n)))
            wall = time.perf_counter() - t0
            for r in results:
                if r.errors or r.first_audio_s is None:
                    raise BenchError(f"a session failed at {n} sessions: {r.errors}")
            ttfa = [r.first_audio_s for r in results if r.first_audio_s is not None]
            audio_s = sum(s.complete.get("duration_s", 0.0) for r in results for s in r.sentences)
            synth_s = (
                sum(s.complete.get("synth_ms", 0.0) for r in results for s in r.sentences) / 1000
            )
            return {
                "sessions": n,
                "ttfa_s": ttfa,
                "session_total_s": [r.total_s for r in results],
                "total_s": wall,
                "audio_s": audio_s,
                "model_s": synth_s,
                "summary": f"TTFA median {median(ttfa) * 1000:.0f} ms, max "
                f"{max(ttfa) * 1000:.0f} ms; {audio_s / wall:.2f} audio s per wall s",
            }

        return run

    return {f"{n} sessions": level(n) for n in levels}


def analyse(samples: dict[str, list[Sample]]) -> list[dict[str, Any]]:
    levels = []
    for runs in samples.values():
        levels.append(
            {
                "sessions": runs[0]["sessions"],
                "runs": len(runs),
                "ttfa": summarize([t for r in runs for t in r["ttfa_s"]]),
                "session_total": summarize([t for r in runs for t in r["session_total_s"]]),
                "wall": summarize([r["total_s"] for r in runs]),
                "throughput": summarize([r["audio_s"] / r["total_s"] for r in runs]),
                "model_busy": summarize([r["model_s"] / r["total_s"] for r in runs]),
                "samples": runs,
            }
        )
    return levels


async def measure(
    args: argparse.Namespace, target: Target, runs: int, levels: list[int], env: dict[str, str]
) -> dict[str, Any]:
    paragraph = read_paragraph()
    modes = build_modes(target, paragraph, levels)
    print(f"levels {levels}, {args.warmup} warm-up round(s) of 1 session, {runs} runs per level")
    # Warm-up: one single session (warming every level would cost a whole extra sweep).
    if args.warmup:
        await run_interleaved({"warm-up": modes[f"{levels[0]} sessions"]}, 0, args.warmup)
    samples = await run_interleaved(modes, runs, 0)
    return {
        "name": NAME,
        "quick": bool(args.quick),
        "runs": runs,
        "warmup": args.warmup,
        "target": {"kind": target.kind, "description": target.description},
        "server_env": env,
        "machine": machine_info(server_providers() if target.same_machine else None),
        "text": {"chars": len(paragraph)},
        "levels": analyse(samples),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__)
    add_common_args(parser, default_runs=2)
    parser.add_argument("--levels", default=None, help="session counts (default 1,2,4,8)")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KOKORO_NAME=VALUE",
        help="setting for the locally started server, e.g. KOKORO_SYNTH_WORKERS=2 (repeatable)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        runs = resolve_runs(args, quick_runs=1)
        levels = parse_levels(args.levels or ("1,2,4" if args.quick else "1,2,4,8"))
        env = parse_env(args.server_env)
        with open_target(args, env=env) as target:
            result = asyncio.run(measure(args, target, runs, levels, env))
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = ", ".join(f"{k}={v}" for k, v in env.items()) or "default server settings"
    publish(
        args.results_dir,
        NAME,
        result,
        lambda png: plots.concurrency_lines(
            png,
            f"Simultaneous sessions on {result['machine']['usable_cores']} cores ({settings})",
            result["levels"],
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

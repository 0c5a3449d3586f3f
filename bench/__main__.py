"""`python -m bench`: every benchmark in turn, then the tables in docs/performance.md.

    python -m bench [--quick] [--runs N] [--only tts_ttfa,concurrency]
    python -m bench --base-url URL                       # a running TTS server (1, 3, 4)
    python -m bench --transport sagemaker --endpoint-name NAME [--region R]
                    [--runtime-arn ARN]        # deployed endpoint (1, 3, 4), runtime (2)

Flags given here are passed to each script; without --runs each uses its own default. The
agent benchmark runs locally unless --agent-url or --runtime-arn points it elsewhere; with a
remote TTS target and neither of those it is skipped (it would measure a different server).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench import agent_ttfa, concurrency, payload_sizes, report, tts_ttfa
from bench.common import RESULTS_DIR
from devkit.paths import OUT_DIR, REPO_ROOT

# --quick checks that every benchmark runs; its numbers are not the product's.
QUICK_RESULTS_DIR = OUT_DIR / "bench-quick"

SCRIPTS: dict[str, Callable[[list[str] | None], int]] = {
    "tts_ttfa": tts_ttfa.main,
    "payload_sizes": payload_sizes.main,
    "concurrency": concurrency.main,
    "agent_ttfa": agent_ttfa.main,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smoke-run every script")
    parser.add_argument("--runs", type=int, default=None, help="runs per mode for every script")
    parser.add_argument("--base-url", default=None, help="measure an already running server")
    parser.add_argument("--transport", choices=("websocket", "sagemaker"), default="websocket")
    parser.add_argument("--endpoint-name", default=None)
    parser.add_argument("--region", default=None)
    parser.add_argument("--agent-url", default=None, help="an already running agent")
    parser.add_argument("--runtime-arn", default=None, help="a deployed AgentCore runtime")
    parser.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated scripts")
    parser.add_argument(
        "--results-dir",
        type=Path,
        default=None,
        help=f"where results go (default {RESULTS_DIR.relative_to(REPO_ROOT)}, "
        f"with --quick {QUICK_RESULTS_DIR.relative_to(REPO_ROOT)})",
    )
    args = parser.parse_args(argv)
    if args.results_dir is None:
        args.results_dir = QUICK_RESULTS_DIR if args.quick else RESULTS_DIR
    return args


def script_argv(args: argparse.Namespace) -> dict[str, list[str] | None]:
    """Each script's own flags; None: skip that script for this target."""
    shared: list[str] = ["--results-dir", str(args.results_dir)]
    if args.quick:
        shared.append("--quick")
    if args.runs is not None:
        shared += ["--runs", str(args.runs)]
    tts = [*shared, "--transport", args.transport]
    for flag, value in (
        ("--base-url", args.base_url),
        ("--endpoint-name", args.endpoint_name),
        ("--region", args.region),
    ):
        if value:
            tts += [flag, value]
    agent: list[str] | None
    if args.runtime_arn:
        agent = [*shared, "--runtime-arn", args.runtime_arn] + (
            ["--region", args.region] if args.region else []
        )
    elif args.agent_url:
        agent = [*shared, "--agent-url", args.agent_url]
    elif args.base_url or args.transport == "sagemaker":
        agent = None
    else:
        agent = list(shared)
    return {"tts_ttfa": tts, "payload_sizes": tts, "concurrency": tts, "agent_ttfa": agent}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SCRIPTS]
    if unknown:
        message = f"error: unknown benchmark(s) {unknown}; choose from {list(SCRIPTS)}"
        print(message, file=sys.stderr)
        return 2
    argvs = script_argv(args)
    started = time.perf_counter()
    for name in chosen:
        print(f"\n=== {name} ===", flush=True)
        if argvs[name] is None:
            print("skipped: give --agent-url or --runtime-arn to measure the agent there")
            continue
        t0 = time.perf_counter()
        rc = SCRIPTS[name](argvs[name])
        print(f"=== {name}: {time.perf_counter() - t0:.0f} s ===", flush=True)
        if rc != 0:
            return rc
    print(f"\nall benchmarks done in {time.perf_counter() - started:.0f} s")
    if args.quick or args.results_dir != RESULTS_DIR:
        # A smoke run's numbers never replace the committed ones or the docs' tables.
        print(f"results in {args.results_dir}; docs/performance.md left as it is")
        return 0
    return report.main([])


if __name__ == "__main__":
    sys.exit(main())

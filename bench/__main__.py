"""`python -m bench`: every benchmark in turn, then the tables in docs/performance.md.

    python -m bench [--quick] [--runs N] [--base-url URL] [--only tts_ttfa,concurrency]

Flags given here are passed to each script; without --runs each uses its own default.
"""

from __future__ import annotations

import argparse
import sys
import time

from bench import concurrency, payload_sizes, report, tts_ttfa

SCRIPTS = {
    "tts_ttfa": tts_ttfa.main,
    "payload_sizes": payload_sizes.main,
    "concurrency": concurrency.main,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smoke-run every script")
    parser.add_argument("--runs", type=int, default=None, help="runs per mode for every script")
    parser.add_argument("--base-url", default=None, help="measure an already running server")
    parser.add_argument("--transport", choices=("websocket", "sagemaker"), default="websocket")
    parser.add_argument("--endpoint-name", default=None)
    parser.add_argument("--region", default=None)
    parser.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated scripts")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SCRIPTS]
    if unknown:
        message = f"error: unknown benchmark(s) {unknown}; choose from {list(SCRIPTS)}"
        print(message, file=sys.stderr)
        return 2
    common: list[str] = ["--quick"] if args.quick else []
    if args.runs is not None:
        common += ["--runs", str(args.runs)]
    for flag, value in (
        ("--base-url", args.base_url),
        ("--endpoint-name", args.endpoint_name),
        ("--region", args.region),
    ):
        if value:
            common += [flag, value]
    common += ["--transport", args.transport]
    started = time.perf_counter()
    for name in chosen:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.perf_counter()
        rc = SCRIPTS[name](common)
        print(f"=== {name}: {time.perf_counter() - t0:.0f} s ===", flush=True)
        if rc != 0:
            return rc
    rc = report.main([])
    print(f"\nall benchmarks done in {time.perf_counter() - started:.0f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""Local end-to-end demo: real Kokoro-82M TTS server + this agent + the caller, on loopback.

    make demo-agent
    python -m demo.agent_demo [--runs 3] [--tokens-per-s 40] [--ws]

Starts the container's server (`container/serve`, real model on CPU) and the
agent (`python -m voice_agent`, text from ReplayedAnswerSource: a given answer replayed at a
fixed token rate, not an LLM) as two processes on 127.0.0.1, runs stream vs batch and prints
the time to first audio. No AWS account is used. The WAVs and the two servers' logs go to
out/ (git-ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from devkit import local_weights
from devkit.agent_client import (
    InvocationResult,
    compare_modes,
    compare_table,
    invoke_http,
    invoke_ws,
)
from devkit.cli import parser as cli_parser
from devkit.local_stack import voice_agent_stack
from devkit.paths import OUT_DIR


async def run_compare(base: str, runs: int, use_ws: bool) -> dict[str, list[InvocationResult]]:
    async def invoke(mode: str) -> InvocationResult:
        payload = {"prompt": "Where is my order?", "mode": mode}
        if use_ws:
            result = await invoke_ws(base.replace("http://", "ws://") + "/ws", payload)
        else:
            result = await invoke_http(base, payload)
        if not result.ok:
            raise RuntimeError(f"{mode} run failed: {result.errors}")
        return result

    return await compare_modes(invoke, runs)


def build_parser() -> argparse.ArgumentParser:
    p = cli_parser("python -m demo.agent_demo", __doc__)
    p.add_argument("--runs", type=int, default=3, help="runs per mode (after one warm-up)")
    p.add_argument("--tokens-per-s", type=float, default=40.0, help="replay token rate")
    p.add_argument("--ws", action="store_true", help="call the agent over /ws, not SSE")
    p.add_argument("--voice", help="TTS voice (default: the server's default voice)")
    p.add_argument(
        "--out", type=Path, default=OUT_DIR, help="folder for the WAVs and logs (default out/)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if args.runs < 1 or args.tokens_per_s <= 0:
        p.error("--runs must be >= 1 and --tokens-per-s > 0")
    out = args.out
    weights = local_weights.find()
    if weights:
        print(f"==> local weights (make weights): {weights.describe()}")
    tts_env = weights.server_env() if weights else {}
    with voice_agent_stack(args.tokens_per_s, out, args.voice, tts_env=tts_env) as base:
        print("==> warm-up run (not counted)")
        asyncio.run(run_compare(base, 1, args.ws))
        print(f"==> {args.runs} runs per mode")
        results = asyncio.run(run_compare(base, args.runs, args.ws))
    for mode, runs in results.items():
        runs[-1].write_wav(out / f"agent_{mode}.wav")
    first = results["stream"][0]
    print()
    print(f"text source: {first.metrics.get('text_source')}")
    print(f"caller: {'WebSocket /ws' if args.ws else 'HTTP POST /invocations (SSE)'}")
    print("time from the request to the first audio byte at the caller, median of runs:")
    print(compare_table(results))
    print(f"audio saved to {out / 'agent_stream.wav'} and {out / 'agent_batch.wav'}")
    load = os.getloadavg()[0]
    print(f"(1-minute load average {load:.1f} on {os.cpu_count()} CPUs: CPU synthesis speed, and")
    print(" so both columns, depends on what else runs on this machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The voice agent's caller CLI: invoke it, save the audio as WAV, print metrics.

    python -m devkit.caller --prompt "Where is my order?"               # local agent, SSE
    python -m devkit.caller --ws --prompt "..."                          # local agent, /ws
    python -m devkit.caller --runtime-arn arn:aws:bedrock-agentcore:...  # deployed runtime
    python -m devkit.caller --compare --runs 3                          # stream vs batch

It runs from the repository's .venv, not from the agent image.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from devkit.agent_client import (
    InvocationResult,
    compare_modes,
    compare_table,
    invoke_http,
    invoke_runtime,
    invoke_ws,
    print_result,
)


async def run_one(args: argparse.Namespace, mode: str) -> InvocationResult:
    payload: dict[str, Any] = {"prompt": args.prompt, "mode": mode, "format": args.format}
    if args.voice:
        payload["voice"] = args.voice
    if args.runtime_arn:
        return await asyncio.to_thread(invoke_runtime, args.runtime_arn, payload, args.region)
    if args.ws:
        ws_url = args.url.replace("http://", "ws://").replace("https://", "wss://")
        return await invoke_ws(f"{ws_url.rstrip('/')}/ws", payload)
    return await invoke_http(args.url, payload)


async def amain(args: argparse.Namespace) -> int:
    if args.compare:
        results = await compare_modes(lambda mode: run_one(args, mode), args.runs)
        failed = [e for rs in results.values() for r in rs for e in r.errors]
        for e in failed:
            print(f"error {e.get('code')}: {e.get('message')}")
        source = results["stream"][0].metrics.get("text_source", "?")
        print(f"text source: {source}")
        print(compare_table(results))
        return 1 if failed else 0
    result = await run_one(args, args.mode)
    print_result(result)
    if args.out and result.audio:
        result.write_wav(Path(args.out))
        print(f"  audio saved to {args.out}")
    return 0 if result.ok else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m devkit.caller", description=__doc__)
    p.add_argument("--url", default="http://127.0.0.1:8080", help="local agent base URL")
    p.add_argument("--ws", action="store_true", help="use the /ws WebSocket instead of SSE")
    p.add_argument("--runtime-arn", help="invoke a deployed AgentCore runtime instead")
    p.add_argument(
        "--region", help="AWS region for --runtime-arn (default: AWS_REGION, AWS_DEFAULT_REGION)"
    )
    p.add_argument("--prompt", default="Where is my order?")
    p.add_argument("--mode", choices=["stream", "batch"], default="stream")
    p.add_argument("--voice")
    p.add_argument("--format", choices=["pcm", "wav", "mp3"], default="pcm")
    p.add_argument("--out", default="agent_answer.wav", help="WAV file for the audio")
    p.add_argument("--compare", action="store_true", help="stream vs batch side by side")
    p.add_argument("--runs", type=int, default=3, help="runs per mode with --compare")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(amain(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())

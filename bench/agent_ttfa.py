"""Benchmark 2: time to first audio through the voice agent, `batch` vs `stream`.

Locally, the real Kokoro server and the real agent run as two processes on loopback
(`devkit.local_stack.voice_agent_stack`, as in `make demo-agent`); the agent's text comes
from its replayed-answer source (the benchmark paragraph replayed at a fixed token rate, not
an LLM). For each token rate (default 20, 40, 80 tokens/s) the two modes run interleaved after
a warm-up. Measured at the caller (SSE over HTTP): time to first text, time to first audio, total.

    python -m bench.agent_ttfa [--rates 20,40,80] [--runs N] [--quick]
    python -m bench.agent_ttfa --agent-url http://HOST:PORT      # an agent already running
    python -m bench.agent_ttfa --runtime-arn ARN [--region R]   # the deployed AgentCore runtime
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from bench import plots
from bench.audible import first_sound_s
from bench.common import (
    RESULTS_DIR,
    BenchError,
    RunOnce,
    Sample,
    resolve_runs,
    run_benchmark,
    run_interleaved,
    summaries,
)
from bench.machine import machine_info
from devkit import agent_client
from devkit.agent_client import InvocationResult
from devkit.local_stack import voice_agent_stack
from devkit.paths import OUT_DIR

NAME = "agent_ttfa"
MODES = ("stream", "batch")
PROMPT = "Where is my order?"
PUBLIC_REFERENCE = {
    "local_agent_container_speedup": 2.4,
    "deployed_agentcore_runtime_speedup": 3.5,
}


def parse_rates(raw: str) -> list[float]:
    try:
        rates = [float(x) for x in raw.split(",") if x.strip()]
    except ValueError as exc:
        raise BenchError(f"--rates must be comma-separated numbers, got {raw!r}") from exc
    if not rates or any(r <= 0 for r in rates):
        raise BenchError(f"--rates needs positive token rates, got {raw!r}")
    return rates


def invocation_sample(result: InvocationResult) -> Sample:
    if not result.ok or result.first_audio_ms is None:
        raise BenchError(f"{result.mode} invocation failed: {result.errors}")
    ttfa_s = result.first_audio_ms / 1000
    return {
        "first_text_s": (result.first_text_ms or 0.0) / 1000,
        "ttfa_s": ttfa_s,
        "first_sound_s": first_sound_s(ttfa_s, result.pcm(), result.sample_rate),
        "total_s": (result.total_ms or 0.0) / 1000,
        "audio_bytes": result.audio_bytes,
        "agent_metrics": result.metrics,
    }


def build_modes(invoke: Any) -> dict[str, RunOnce]:
    def one(mode: str) -> RunOnce:
        async def run() -> Sample:
            return invocation_sample(await invoke({"prompt": PROMPT, "mode": mode}))

        return run

    return {mode: one(mode) for mode in MODES}


def analyse_group(label: str, samples: dict[str, list[Sample]]) -> dict[str, Any]:
    modes: dict[str, dict[str, Any]] = {
        mode: {
            "key": mode,
            "label": f"{label}: {mode}",
            **summaries(runs, "first_text", "ttfa", "first_sound", "total"),
            "samples": runs,
        }
        for mode, runs in samples.items()
    }
    speedup = modes["batch"]["first_sound"]["median"] / modes["stream"]["first_sound"]["median"]
    return {"label": label, "modes": list(modes.values()), "stream_speedup": speedup}


async def measure_group(invoke: Any, runs: int, warmup: int) -> dict[str, list[Sample]]:
    return await run_interleaved(build_modes(invoke), runs, warmup)


def text_source(groups: list[dict[str, Any]]) -> str:
    """What produced the answer text, as the agent itself reports it in `done` metrics."""
    first = groups[0]["modes"][0]["samples"][0]["agent_metrics"]
    return str(first.get("text_source", "unknown"))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.agent_ttfa", description=__doc__)
    parser.add_argument("--runs", type=int, default=None, help="runs per mode (default 3)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 run, 40 tokens/s")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rates", default=None, help="replay token rates (default 20,40,80)")
    parser.add_argument("--runtime-arn", default=None, help="a deployed AgentCore runtime")
    parser.add_argument("--region", default=None)
    parser.add_argument(
        "--agent-url", default=None, help="an already running agent (http://host:port)"
    )
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.set_defaults(default_runs=3)
    return parser.parse_args(argv)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Stream and batch through the agent: a deployed runtime, a running agent, or one local
    stack per token rate."""
    runs = resolve_runs(args, quick_runs=1)
    if args.runtime_arn and args.agent_url:
        raise BenchError("give either --runtime-arn or --agent-url, not both")
    groups = []
    if args.runtime_arn:

        async def invoke_runtime(payload: dict[str, Any]) -> Any:
            return await asyncio.to_thread(
                agent_client.invoke_runtime, args.runtime_arn, payload, args.region
            )

        samples = asyncio.run(measure_group(invoke_runtime, runs, args.warmup))
        groups.append(analyse_group("deployed runtime (its LLM)", samples))
        target = f"AgentCore runtime {args.runtime_arn}"
    elif args.agent_url:
        url = args.agent_url.rstrip("/")

        async def invoke_running(payload: dict[str, Any]) -> Any:
            return await agent_client.invoke_http(url, payload)

        samples = asyncio.run(measure_group(invoke_running, runs, args.warmup))
        groups.append(analyse_group("running agent", samples))
        target = f"running agent at {url}"
    else:
        rates = parse_rates(args.rates or ("40" if args.quick else "20,40,80"))
        for rate in rates:
            print(f"Starting the Kokoro server and the agent (replay at {rate:g} tokens/s) ...")
            with voice_agent_stack(rate, OUT_DIR) as base_url:

                async def invoke_local(payload: dict[str, Any], url: str = base_url) -> Any:
                    return await agent_client.invoke_http(url, payload)

                samples = asyncio.run(measure_group(invoke_local, runs, args.warmup))
            groups.append(analyse_group(f"{rate:g} tokens/s", samples))
        target = "local Kokoro server + voice agent on 127.0.0.1 (replayed answer)"
    return {
        "name": NAME,
        "quick": bool(args.quick),
        "runs": runs,
        "warmup": args.warmup,
        "target": {"kind": "runtime" if args.runtime_arn else "local", "description": target},
        "machine": machine_info(),
        "prompt": PROMPT,
        "text_source": text_source(groups),
        "groups": groups,
        "public_reference": PUBLIC_REFERENCE,
    }


def plot(png: Path, result: dict[str, Any]) -> None:
    modes = [m for g in result["groups"] for m in g["modes"]]
    plots.timing_bars(png, "Voice agent: time to first audio, stream vs batch", modes)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_benchmark(NAME, args, lambda: measure(args), plot)


if __name__ == "__main__":
    sys.exit(main())

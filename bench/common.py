"""What every benchmark script shares: arguments, the server under test, interleaved runs, output.

Targets (`--transport` / `--base-url`):
- default: start the real server (`container/serve`, real Kokoro-82M on CPU) on 127.0.0.1;
- `--base-url URL`: an already running server that exposes the container's routes;
- `--transport sagemaker --endpoint-name NAME`: the deployed SageMaker endpoint through the
  agent's SageMaker HTTP/2 bidirectional transport (see `sagemaker_transport`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kokoro_stream.base import TtsTransport
from kokoro_stream.messages import DEFAULT_SAMPLE_RATE

from bench.machine import machine_info
from bench.tables import print_tables
from devkit.local_stack import tts_server
from devkit.paths import OUT_DIR, REPO_ROOT
from devkit.processes import wait_healthy
from devkit.stats import summarize
from devkit.text import PARAGRAPH
from devkit.tts_client import (
    OneShotResult,
    StreamResult,
    invoke_endpoint_once,
    stream_session,
    synthesize_once,
    websocket_transport,
)

RESULTS_DIR = REPO_ROOT / "bench" / "results"
SERVER_LOG = OUT_DIR / "bench-server.log"


class BenchError(RuntimeError):
    """A benchmark cannot run as asked (bad flags, missing transport, unhealthy server)."""


@dataclass(frozen=True)
class Target:
    kind: str  # "local" (started here), "url" (already running) or "sagemaker"
    base_url: str  # empty for sagemaker
    description: str
    transport: TtsTransport | None = None  # None: the container's WebSocket route
    endpoint_name: str | None = None
    region: str | None = None

    @property
    def same_machine(self) -> bool:
        return self.kind == "local"

    async def stream(
        self,
        deltas: list[str],
        *,
        tokens_per_s: float | None = None,
        audio_format: str = "pcm",
        sample_rate: int = DEFAULT_SAMPLE_RATE,
        frame_ms: int | None = None,
    ) -> StreamResult:
        """One bidirectional session: send deltas (paced if tokens_per_s), close, collect."""
        transport = self.transport or websocket_transport(self.base_url)
        return await stream_session(
            transport,
            deltas,
            tokens_per_s=tokens_per_s,
            audio_format=audio_format,
            sample_rate=sample_rate,
            frame_ms=frame_ms,
        )

    async def one_shot(self, text: str, **options: Any) -> OneShotResult:
        """The non-streaming route (POST /invocations; InvokeEndpoint on SageMaker)."""
        if self.kind == "sagemaker":
            assert self.endpoint_name is not None
            return await asyncio.to_thread(
                invoke_endpoint_once, self.endpoint_name, self.region, text, **options
            )
        return await synthesize_once(self.base_url, text, **options)


def add_common_args(parser: argparse.ArgumentParser, default_runs: int) -> None:
    parser.add_argument(
        "--runs", type=int, default=None, help=f"measured runs per mode (default {default_runs})"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a fast smoke run (fewer runs, smaller sweeps): checks the scripts, not the numbers",
    )
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs per mode first")
    parser.add_argument(
        "--base-url", default=None, help="measure an already running server (http://host:port)"
    )
    parser.add_argument(
        "--transport",
        choices=("websocket", "sagemaker"),
        default="websocket",
        help="websocket: the container's routes directly; sagemaker: a deployed endpoint",
    )
    parser.add_argument("--endpoint-name", default=None, help="SageMaker endpoint (sagemaker)")
    parser.add_argument("--region", default=None, help="AWS region (sagemaker)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.set_defaults(default_runs=default_runs)


def resolve_runs(args: argparse.Namespace, quick_runs: int) -> int:
    runs = args.runs if args.runs is not None else (quick_runs if args.quick else args.default_runs)
    if runs < 1:
        raise BenchError(f"--runs must be at least 1, got {runs}")
    if args.warmup < 0:
        raise BenchError(f"--warmup must be 0 or more, got {args.warmup}")
    return runs


def sagemaker_transport(endpoint_name: str | None, region: str | None) -> Any:
    """The agent's SageMaker bidirectional transport (InvokeEndpointWithBidirectionalStream).

    The benchmarks do not carry their own SageMaker client: they reuse the agent's
    (aws-sdk-sagemaker-runtime-http2 over awscrt), so the numbers measure production code.
    Nothing is called on AWS until the first session opens.
    """
    if not endpoint_name:
        raise BenchError("--transport sagemaker needs --endpoint-name NAME")
    from kokoro_stream.sagemaker import SageMakerBidiTts

    return SageMakerBidiTts(endpoint_name, region=region)


@contextmanager
def open_target(args: argparse.Namespace, env: dict[str, str] | None = None) -> Iterator[Target]:
    """Yield the server to measure; starts (and stops) a local one unless told otherwise."""
    if args.transport == "sagemaker":
        if args.base_url or env:
            raise BenchError("--transport sagemaker takes neither --base-url nor server settings")
        transport = sagemaker_transport(args.endpoint_name, args.region)
        region = args.region or "the default region"
        try:
            yield Target(
                "sagemaker",
                "",
                f"SageMaker endpoint {args.endpoint_name} ({region})",
                transport,
                args.endpoint_name,
                args.region,
            )
        finally:
            asyncio.run(transport.aclose())
        return
    if args.base_url:
        if env:
            raise BenchError(
                "server settings cannot be changed on a --base-url server; start it with them"
            )
        base_url = args.base_url.rstrip("/")
        try:
            wait_healthy(base_url, timeout_s=30.0)
        except TimeoutError as exc:
            raise BenchError(f"{base_url} is not healthy: {exc}") from exc
        yield Target("url", base_url, f"running server at {base_url}")
        return
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    settings = ", ".join(f"{k}={v}" for k, v in (env or {}).items()) or "default settings"
    print(f"Starting the Kokoro server on 127.0.0.1 (real Kokoro-82M, CPU; {settings}) ...")
    started = time.perf_counter()
    with tts_server(env=env, timeout_s=300.0, log_path=SERVER_LOG) as base_url:
        print(f"  healthy after {time.perf_counter() - started:.1f} s at {base_url}")
        yield Target("local", base_url, "the real server (container/serve) started on 127.0.0.1")


Sample = dict[str, Any]
RunOnce = Callable[[], Awaitable[Sample]]


async def run_interleaved(
    modes: dict[str, RunOnce], runs: int, warmup: int
) -> dict[str, list[Sample]]:
    """Warm-up round(s), then run 1 of every mode, run 2 of every mode, ...

    Interleaving spreads slow drifts of the machine (other load, thermal) over all modes
    instead of charging them to whichever mode ran last.
    """
    for round_ in range(warmup):
        for name, run in modes.items():
            print(f"  warm-up {round_ + 1}/{warmup}: {name}", flush=True)
            await run()
    samples: dict[str, list[Sample]] = {name: [] for name in modes}
    for i in range(runs):
        for name, run in modes.items():
            sample = await run()
            samples[name].append(sample)
            shown = sample.get("summary") or (
                f"{sample['ttfa_s'] * 1000:.0f} ms to first audio, "
                f"{sample['total_s'] * 1000:.0f} ms total"
            )
            print(f"  run {i + 1}/{runs}: {name}: {shown}", flush=True)
    return samples


def summaries(runs: list[Sample], *names: str) -> dict[str, dict[str, float]]:
    """Each name's summary over the runs, read from the samples' `<name>_s` seconds."""
    return {name: summarize([s[f"{name}_s"] for s in runs]) for name in names}


def write_result(results_dir: Path, name: str, data: dict[str, Any]) -> Path:
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


def read_paragraph() -> str:
    return PARAGRAPH


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f}"


def publish(
    results_dir: Path, name: str, result: dict[str, Any], plot: Callable[[Path], None]
) -> None:
    """The end of every benchmark: table on stdout, JSON result, PNG plot.

    Every result records the load average and the usable cores at start (machine_info) and
    at the end, and says when the machine was busy (1-minute load above half its cores at
    either end): numbers taken on a shared, loaded machine are not a quiet machine's."""
    machine = result.get("machine") or {}
    cores = machine.get("usable_cores") or len(os.sched_getaffinity(0))
    start = machine.get("load_average_1m_at_start")
    end = result.setdefault("load_average_1m_at_end", os.getloadavg()[0])
    result["busy_machine"] = any(v is not None and v > 0.5 * cores for v in (start, end))
    print_tables(name, result)
    mark = "  ** taken on a BUSY machine **" if result["busy_machine"] else ""
    print(f"\nload average (1 min) at start {start}, at end {end:.2f}, on {cores} cores{mark}")
    path = write_result(results_dir, name, result)
    plot(path.with_suffix(".png"))
    print(f"\nwrote {path} and {path.with_suffix('.png')}")


Plot = Callable[[Path, dict[str, Any]], None]


def run_benchmark(
    name: str, args: argparse.Namespace, measure: Callable[[], dict[str, Any]], plot: Plot
) -> int:
    """What every benchmark's `main` comes to: measure, then publish; exit 2 on a BenchError
    (bad flags, an unhealthy server), with one line saying why."""
    try:
        result = measure()
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    publish(args.results_dir, name, result, lambda png: plot(png, result))
    return 0


OnTarget = Callable[[argparse.Namespace, Target, int], Coroutine[Any, Any, dict[str, Any]]]


def on_target(args: argparse.Namespace, quick_runs: int, measure: OnTarget) -> dict[str, Any]:
    """Resolve the run count, open the server under test, run `measure` on it."""
    runs = resolve_runs(args, quick_runs)
    with open_target(args) as target:
        return asyncio.run(measure(args, target, runs))


def result_head(
    name: str,
    args: argparse.Namespace,
    runs: int,
    target: Target,
    provider_in_use: list[str] | None,
) -> dict[str, Any]:
    """The keys an on-target benchmark's result starts with, in the order its JSON keeps.

    provider_in_use: what the engine measured here reported (None when the server is not ours)."""
    return {
        "name": name,
        "quick": bool(args.quick),
        "runs": runs,
        "warmup": args.warmup,
        "target": {"kind": target.kind, "description": target.description},
        "machine": machine_info(provider_in_use),
    }

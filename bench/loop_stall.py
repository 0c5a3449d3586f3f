"""How long hostile text streams block the server's event loop, and what /ping sees meanwhile.

    python -m bench.loop_stall [--runs 3] [--out bench/results/loop_stall.json]

The server (the real container app, served as `serve` serves it, with the tone test double
for the model: the text stages run on the event loop whatever the engine) runs in a child
process, so the client's own work does not hold the server's interpreter lock. Inside it a
monitor task sleeps 5 ms at a time on the server's loop; how late each wake-up is, is how
long something else held the loop. Meanwhile this process GETs /ping every 20 ms.

Streams, run in turns (A B C A B C ...) so a machine that slows down weighs on all alike:
- idle: no stream (the floor: scheduling noise of this machine);
- 20,000 one-character deltas without a space, then `cancel` (timed to `cancelled`);
- 1 MB of unspaced Latin letters in 1,000-character deltas, then `cancel`;
- 1 MB of Japanese (no spaces; sentence ends every 40 characters), 1,000-character deltas.
Each stream's answers are read as they come (errors such as text_too_long or queue_full
are the server's bounds at work; the client reads them, as a client would).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.common import write_result
from bench.machine import machine_info
from bench.stats import percentile, summarize
from bench.tables import Table, format_text
from devkit.paths import REPO_ROOT
from devkit.processes import child_process, free_port, wait_healthy

MONITOR_TICK_S = 0.005
PING_EVERY_S = 0.02
STREAM_TIMEOUT_S = 120.0
JAPANESE = "今日は良い天気ですね。" * 4  # 44 characters, sentence ends every 11


def _latin(n: int) -> str:
    return ("abcdefghij" * (n // 10 + 1))[:n]


def _japanese(n: int) -> str:
    return (JAPANESE * (n // len(JAPANESE) + 1))[:n]


STREAMS: dict[str, Callable[[], list[str]]] = {
    "idle": lambda: [],
    "20,000 one-char deltas": lambda: list(_latin(20_000)),
    "1 MB unspaced, 1,000-char deltas": lambda: [_latin(1000) for _ in range(1000)],
    "1 MB Japanese, 1,000-char deltas": lambda: [_japanese(1000) for _ in range(1000)],
}


# ---- the server side (child process) ------------------------------------------------------


def serve(port: int) -> None:
    """The container app on 127.0.0.1:port plus a loop-lag monitor and its /loop-lag route."""
    import uvicorn
    from starlette.responses import JSONResponse

    from devkit.tone import ToneSynthesisService
    from kokoro_server.config import Settings
    from kokoro_server.serving.app import create_app
    from kokoro_server.serving.serve import uvicorn_options

    settings = Settings(host="127.0.0.1", port=port)
    service = ToneSynthesisService(settings)
    service.load()
    app = create_app(settings, service)
    lags: list[float] = []

    async def monitor() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(MONITOR_TICK_S)
            lags.append(time.perf_counter() - started - MONITOR_TICK_S)

    async def loop_lag(request: Any) -> JSONResponse:
        if not _TASKS:  # the first call starts the monitor, on the server's loop
            _TASKS.add(asyncio.create_task(monitor()))
        taken = list(lags)
        lags.clear()
        return JSONResponse({"lags_s": taken})

    app.add_route("/loop-lag", loop_lag, methods=["POST"])
    uvicorn.run(app, host="127.0.0.1", port=port, log_config=None, **uvicorn_options(settings))


_TASKS: set[asyncio.Task[None]] = set()  # the monitor, kept referenced


# ---- the client side ---------------------------------------------------------------------


class PingSampler:
    """GET /ping every PING_EVERY_S from a thread; every latency (s) and failure kept."""

    def __init__(self, http: str) -> None:
        self.http = http
        self.latencies: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._sent = time.perf_counter()

    def _run(self) -> None:
        with httpx.Client(timeout=10) as client:
            while not self._stop.is_set():
                self._sent = started = time.perf_counter()
                try:
                    if client.get(f"{self.http}/ping").status_code != 200:
                        self.failures += 1
                except httpx.HTTPError:
                    self.failures += 1
                self.latencies.append(time.perf_counter() - started)
                self._stop.wait(PING_EVERY_S)

    def __enter__(self) -> PingSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=15)
        if self._thread.is_alive():  # a ping still unanswered: it counts, as a failure
            self.latencies.append(time.perf_counter() - self._sent)
            self.failures += 1


async def _drain(ws: ClientConnection, counts: dict[str, int], stop: asyncio.Event) -> float:
    """Read everything; the perf_counter time `cancelled` arrived (0 when none came)."""
    async for raw in ws:
        if isinstance(raw, bytes):
            counts["audio_bytes"] += len(raw)
            continue
        kind = json.loads(raw).get("type", "")
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "cancelled":
            stop.set()
            return time.perf_counter()
    return 0.0


async def run_stream(ws_url: str, deltas: list[str]) -> dict[str, Any]:
    counts: dict[str, int] = {"audio_bytes": 0}
    if not deltas:
        await asyncio.sleep(2.0)  # idle: the same length of sampling as a short stream
        return {"counts": counts, "cancel_s": None, "send_s": 0.0}
    async with connect(ws_url, max_queue=None, max_size=None) as ws:
        stop = asyncio.Event()
        reader = asyncio.create_task(_drain(ws, counts, stop))
        started = time.perf_counter()
        for delta in deltas:
            await ws.send(json.dumps({"type": "text", "text": delta}))
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "cancel"}))
        cancelled_at = await asyncio.wait_for(reader, STREAM_TIMEOUT_S)
    return {
        "counts": counts,
        "send_s": sent - started,
        "cancel_s": cancelled_at - sent if cancelled_at else None,
    }


def _one_run(base: str, name: str) -> dict[str, Any]:
    httpx.post(f"{base}/loop-lag", timeout=10)  # what came before belongs to no stream
    ws_url = base.replace("http", "ws") + "/invocations-bidirectional-stream"
    with PingSampler(base) as pings:
        outcome = asyncio.run(run_stream(ws_url, STREAMS[name]()))
    lags = httpx.post(f"{base}/loop-lag", timeout=10).json()["lags_s"]
    return {
        **outcome,
        "loop_lag": summarize(lags) | {"p99": _p99(lags)},
        "ping": summarize(pings.latencies) | {"p99": _p99(pings.latencies)},
        "ping_failures": pings.failures,
    }


def _p99(values: list[float]) -> float:
    return percentile(values, 99.0)


def table(result: dict[str, Any]) -> Table:
    headers = [
        "stream",
        "runs",
        "loop stall max (ms)",
        "loop stall p99",
        "/ping p50",
        "/ping p99",
        "/ping max",
        "/ping failed",
        "send (s)",
        "cancel -> cancelled (ms)",
    ]
    rows = []
    for name, runs in result["streams"].items():
        worst = max(r["loop_lag"]["max"] for r in runs)
        cancels = [r["cancel_s"] for r in runs if r["cancel_s"] is not None]
        rows.append(
            [
                name,
                str(len(runs)),
                f"{worst * 1000:.1f}",
                f"{max(r['loop_lag']['p99'] for r in runs) * 1000:.1f}",
                f"{max(r['ping']['median'] for r in runs) * 1000:.1f}",
                f"{max(r['ping']['p99'] for r in runs) * 1000:.1f}",
                f"{max(r['ping']['max'] for r in runs) * 1000:.1f}",
                str(sum(r["ping_failures"] for r in runs)),
                f"{max(r['send_s'] for r in runs):.1f}",
                f"{max(cancels) * 1000:.0f}" if cancels else "-",
            ]
        )
    load = result["machine"]["load_average_1m_at_start"]
    busy = " (busy machine)" if load and load > (result["machine"]["usable_cores"] or 1) / 2 else ""
    return Table(f"Event-loop stalls under hostile streams, worst of the runs{busy}", headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loop_stall", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "bench.loop_stall", "--serve", str(port)]
    result: dict[str, Any] = {"machine": machine_info(), "streams": {n: [] for n in STREAMS}}
    with child_process(cmd, dict(os.environ)) as proc:
        wait_healthy(base, 60, proc)
        for run in range(args.runs):
            for name in STREAMS:
                print(f"run {run + 1}/{args.runs}: {name}", file=sys.stderr, flush=True)
                result["streams"][name].append(_one_run(base, name))
    result["load_average_1m_at_end"] = os.getloadavg()[0]
    path = write_result(args.out, "loop_stall", result)
    print(format_text(table(result)))
    print(
        f"load average (1 min): {result['machine']['load_average_1m_at_start']:.2f} at start, "
        f"{result['load_average_1m_at_end']:.2f} at end; written to {path}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What the server's CPU pays per second of audio it sends, the model call excluded, per format.

    python -m bench.cpu_cost [--runs 10] [--formats pcm,wav,mp3,ulaw,ulaw@20,opus]
                             [--deflate on,off] [--concurrency 1] [--text T] [--out DIR]

The real container app runs in a child process (served by uvicorn with the container's
options and JSON logging), on the no-model test double (bench/cpu_cost_engine.py): the real
text front end, model-call planning, word timings, pacing, encoding, scheduler and WebSocket
session, with audio returned at once where the model would run. This process drives one
bidirectional session per run and mode (a format, and whether the client offers
permessage-deflate, which the server then applies to every frame; runs interleaved:
A B C A B C ...), speaking the agent's default script and a markdown answer in LLM-sized
deltas with word timestamps on, as the agent asks, and reads the server's CPU before and
after each session: utime + stime from
/proc/<pid>/stat, and, through a route only this child serves, each thread's CPU clock and
the CPU of each stage (time.thread_time in the worker). The double's own audio generation is
measured and left out of the cost. `ulaw@20` is ulaw in 20 ms frames (`frame_ms`).

Cost = server CPU ms per second of audio sent (sum of `synthesis_complete.duration_s`).
Implied real-time streams per vCPU = 1000 / cost: what one core could feed if nothing else
ran on it (see docs/performance.md for what a g5 adds: the model's own CPU, the GIL).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.common import write_result
from bench.cpu_cost_engine import VOICE
from bench.machine import machine_info
from bench.stats import summarize
from bench.tables import Table, format_text
from devkit.paths import REPO_ROOT
from devkit.processes import child_process, free_port, wait_healthy
from devkit.text import llm_deltas
from kokoro_server.audio import g711
from kokoro_server.audio.encoding import FORMATS
from voice_agent.llm import DEFAULT_SCRIPT

DEFAULT_FORMATS = "pcm,wav,mp3,ulaw,ulaw@20,opus"
SESSION_TIMEOUT_S = 300.0
SETTLE_S = 0.05  # after the close: the server finishes the session's teardown
# An answer as an LLM writes one when it lists things: markdown, numbers, money, a phone number.
MARKDOWN_ANSWER = (
    "Here is what I changed on your order:\n\n"
    "1. **Delivery address:** 42 Market Street, Suite 5.\n"
    "2. **Delivery window:** Thursday, 2:00 to 4:00 p.m.\n"
    "3. **Shipping:** upgraded to express at no cost, saving you $7.99.\n\n"
    "You'll get a text at 555-0134 when the driver is 30 minutes away."
)
ANSWER = "\n\n".join([*DEFAULT_SCRIPT, MARKDOWN_ANSWER])


@dataclass(frozen=True)
class FormatSpec:
    label: str  # as given: "mp3", "ulaw@20"
    fmt: str
    frame_ms: int = 0  # ulaw/alaw only: fixed frames of this many ms

    def start_message(self) -> dict[str, Any]:
        start: dict[str, Any] = {
            "type": "start",
            "voice": VOICE,
            "format": self.fmt,
            "word_timestamps": True,  # the agent always asks for them
        }
        if self.frame_ms:
            start["frame_ms"] = self.frame_ms
        return start


@dataclass(frozen=True)
class Mode:
    """One row of the table: a format, and whether the client offers permessage-deflate."""

    spec: FormatSpec
    deflate: bool  # websockets clients and browsers offer it by default; the server accepts

    @property
    def key(self) -> str:
        return f"{self.spec.label}, deflate {'on' if self.deflate else 'off'}"


def parse_formats(text: str) -> list[FormatSpec]:
    """`pcm,mp3,ulaw@20` -> specs; a clear error for an unknown format or frame size."""
    specs = []
    for label in (part.strip() for part in text.split(",")):
        fmt, _, frame = label.partition("@")
        if fmt not in FORMATS:
            raise argparse.ArgumentTypeError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
        if frame and (fmt not in g711.LAWS or not frame.isdigit()):
            raise argparse.ArgumentTypeError(f"{label!r}: only ulaw/alaw take @FRAME_MS")
        if frame and int(frame) not in g711.FRAME_MS:
            raise argparse.ArgumentTypeError(f"{label!r}: frame_ms must be one of {g711.FRAME_MS}")
        specs.append(FormatSpec(label, fmt, int(frame or 0)))
    if len({s.label for s in specs}) != len(specs):
        raise argparse.ArgumentTypeError(f"a format is named twice in {text!r}")
    return specs


# ---- the server side (child process) ------------------------------------------------------


def thread_cpu() -> dict[str, float]:
    """CPU seconds of every live Python thread, by name (the event loop is MainThread)."""
    seconds: dict[str, float] = {}
    for thread in threading.enumerate():
        if thread.ident is None:
            continue
        try:
            clock = time.pthread_getcpuclockid(thread.ident)
            seconds[thread.name] = time.clock_gettime(clock)
        except (OSError, ProcessLookupError):  # ended between enumerate and the read
            continue
    return seconds


def serve(port: int) -> None:
    """The container app on the no-model double, plus GET /cpu (this bench's only addition)."""
    import uvicorn
    from starlette.responses import JSONResponse

    from bench.cpu_cost_engine import NoModelSynthesisService
    from kokoro_server import logs
    from kokoro_server.config import Settings
    from kokoro_server.serving.app import create_app
    from kokoro_server.serving.serve import uvicorn_options

    logs.configure("INFO")  # the production server logs every sentence: that costs CPU too
    settings = Settings.from_env()
    service = NoModelSynthesisService(settings)
    app = create_app(settings, service)

    async def cpu(request: Any) -> JSONResponse:
        return JSONResponse(
            {
                "process_s": time.process_time(),
                "threads": thread_cpu(),
                "stages": service.clock.snapshot(),
            }
        )

    app.add_route("/cpu", cpu, methods=["GET"])
    options = uvicorn_options(settings)
    uvicorn.run(app, host="127.0.0.1", port=port, log_config=None, access_log=False, **options)


# ---- the client side ---------------------------------------------------------------------


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process from /proc/<pid>/stat (all its threads), in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _read(ws: ClientConnection, counts: dict[str, float]) -> None:
    async for raw in ws:
        if isinstance(raw, bytes):
            counts["audio_bytes"] += len(raw)
            counts["binary_frames"] += 1
            continue
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "error":
            raise RuntimeError(f"the server answered an error: {message}")
        if kind == "synthesis_complete":
            counts["audio_s"] += float(message["duration_s"])
            counts["sentences"] += 1
        if kind == "session_end":
            return
    raise RuntimeError("the server closed the session before session_end")


async def run_session(ws_url: str, mode: Mode, deltas: list[str], counts: dict[str, float]) -> None:
    """One session: start, every delta, close; adds what came back to `counts`."""
    compression = "deflate" if mode.deflate else None
    async with connect(ws_url, max_queue=None, max_size=None, compression=compression) as ws:
        reader = asyncio.create_task(_read(ws, counts))
        await ws.send(json.dumps(mode.spec.start_message()))
        for delta in deltas:
            await ws.send(json.dumps({"type": "text", "text": delta}))
        await ws.send(json.dumps({"type": "close"}))
        await asyncio.wait_for(reader, SESSION_TIMEOUT_S)


async def run_sessions(
    ws_url: str, mode: Mode, deltas: list[str], concurrency: int
) -> dict[str, float]:
    """`concurrency` sessions at once; their audio seconds, bytes and frames summed."""
    counts = dict.fromkeys(("audio_s", "sentences", "audio_bytes", "binary_frames"), 0.0)
    started = time.perf_counter()
    await asyncio.gather(*(run_session(ws_url, mode, deltas, counts) for _ in range(concurrency)))
    counts["wall_s"] = time.perf_counter() - started
    return counts


def _server_cpu(base: str, pid: int) -> dict[str, Any]:
    inside = httpx.get(f"{base}/cpu", timeout=10).json()
    return {"proc_s": proc_cpu_s(pid), **inside}


def _stage_s(before: dict[str, Any], after: dict[str, Any], stage: str) -> float:
    def seconds(snapshot: dict[str, Any]) -> float:
        return float(snapshot["stages"].get(stage, {}).get("cpu_s", 0.0))

    return seconds(after) - seconds(before)


def cpu_split(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float]:
    """Where one measurement's CPU went (seconds); `cost_s` leaves out the double's audio."""
    process = after["process_s"] - before["process_s"]
    double = _stage_s(before, after, "no_model_audio")
    front_end = _stage_s(before, after, "front_end")
    worker = _stage_s(before, after, "worker")
    loop = after["threads"]["MainThread"] - before["threads"]["MainThread"]
    return {
        "proc_s": after["proc_s"] - before["proc_s"],
        "process_s": process,
        "cost_s": process - double,
        "no_model_audio_s": double,
        "front_end_s": front_end,
        "pacing_encoding_s": worker - front_end - double,  # plus planning and word timings
        "loop_s": loop,  # markdown, segmenter, protocol, WebSocket sends, logging
        "other_s": process - loop - worker,  # worker threads outside a job, GC, uvicorn
    }


def measure_once(
    base: str, pid: int, mode: Mode, deltas: list[str], concurrency: int
) -> dict[str, Any]:
    """The server's CPU around `concurrency` simultaneous sessions of one mode."""
    ws_url = base.replace("http", "ws", 1) + "/invocations-bidirectional-stream"
    before = _server_cpu(base, pid)
    counts = asyncio.run(run_sessions(ws_url, mode, deltas, concurrency))
    time.sleep(SETTLE_S)
    after = _server_cpu(base, pid)
    split = cpu_split(before, after)
    busy = split["process_s"] / (counts["wall_s"] + SETTLE_S)  # cores, while it worked
    return {**counts, **split, "cores_busy": busy}


def measure(base: str, pid: int, modes: list[Mode], options: argparse.Namespace) -> dict[str, Any]:
    """One warm-up per mode, then `options.runs` rounds of every mode in turn."""
    deltas = llm_deltas(options.text)
    for mode in modes:
        measure_once(base, pid, mode, deltas, options.concurrency)
    samples: dict[str, list[dict[str, Any]]] = {mode.key: [] for mode in modes}
    for run in range(options.runs):
        for mode in modes:
            sample = measure_once(base, pid, mode, deltas, options.concurrency)
            samples[mode.key].append(sample)
            per_s = sample["cost_s"] / sample["audio_s"] * 1000
            print(
                f"run {run + 1}/{options.runs} {mode.key}: {per_s:.1f} CPU ms/audio s", flush=True
            )
    return {"deltas": len(deltas), "chars": len(options.text), "modes": samples}


# ---- the result --------------------------------------------------------------------------

PARTS = ("front_end", "pacing_encoding", "loop", "other", "no_model_audio")


def per_audio_ms(samples: list[dict[str, Any]], key: str) -> dict[str, float]:
    """A CPU figure of every run in ms per audio second, summarized."""
    return summarize([s[key] / s["audio_s"] * 1000 for s in samples])


def summary_rows(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {}
    for key, samples in result["modes"].items():
        cost = per_audio_ms(samples, "cost_s")
        rows[key] = {
            "runs": len(samples),
            "audio_s": samples[0]["audio_s"],
            "cost_ms_per_audio_s": cost,
            "streams_per_vcpu": 1000 / cost["median"],
            "cores_busy": summarize([s["cores_busy"] for s in samples])["median"],
            **{part: per_audio_ms(samples, f"{part}_s")["median"] for part in PARTS},
        }
    return rows


def table(result: dict[str, Any]) -> Table:
    cores = result["machine"]["usable_cores"]
    title = (
        f"Server CPU ms per second of audio sent, the model excluded ({cores}-core CPU "
        f"machine, no-model test double, {result['concurrency']} session(s) at a time)"
    )
    headers = [
        "format, client deflate",
        "runs",
        "audio s/run",
        "median",
        "p95",
        "streams per vCPU",
        "front end",
        "pacing + encoding",
        "event loop + send",
        "other",
        "cores busy",
    ]
    rows = [
        [
            key,
            str(row["runs"]),
            f"{row['audio_s']:.1f}",
            f"{row['cost_ms_per_audio_s']['median']:.2f}",
            f"{row['cost_ms_per_audio_s']['p95']:.2f}",
            f"{row['streams_per_vcpu']:.0f}",
            *(f"{row[part]:.2f}" for part in PARTS[:4]),
            f"{row['cores_busy']:.2f}",
        ]
        for key, row in summary_rows(result).items()
    ]
    return Table(title, headers, rows)


def run_bench(modes: list[Mode], options: argparse.Namespace) -> dict[str, Any]:
    """Start the server, measure, stop it; the result (also written to out/cpu_cost.json)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "bench.cpu_cost", "--serve", str(port)]
    result: dict[str, Any] = {
        "machine": machine_info(["no-model test double"]),
        "runs": options.runs,
        "concurrency": options.concurrency,
    }
    with child_process(cmd, dict(os.environ)) as proc:
        wait_healthy(base, 120, proc)
        result |= measure(base, proc.pid, modes, options)
    result["load_average_1m_at_end"] = os.getloadavg()[0]
    result["summary"] = summary_rows(result)
    result["path"] = str(write_result(options.out, "cpu_cost", result))
    return result


def parse_deflate(text: str) -> list[bool]:
    choices = {"on": True, "off": False}
    values = [part.strip() for part in text.split(",")]
    if not values or any(v not in choices for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"--deflate takes on, off or on,off; got {text!r}")
    return [choices[v] for v in values]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.cpu_cost", description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="measured rounds per mode")
    parser.add_argument("--formats", type=parse_formats, default=parse_formats(DEFAULT_FORMATS))
    parser.add_argument(
        "--deflate",
        type=parse_deflate,
        default=[True, False],
        help="whether the client offers permessage-deflate: on, off or on,off (default)",
    )
    parser.add_argument("--concurrency", type=int, default=1, help="sessions at once per run")
    parser.add_argument("--text", default=ANSWER, help="what each session speaks")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results")
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.concurrency < 1:
        parser.error("--runs and --concurrency must be at least 1")
    if not args.text.strip():
        parser.error("--text must hold something to say")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    modes = [Mode(spec, deflate) for spec in args.formats for deflate in args.deflate]
    result = run_bench(modes, args)
    print(format_text(table(result)))
    machine = result["machine"]
    print(
        f"load average (1 min): {machine['load_average_1m_at_start']:.2f} at start, "
        f"{result['load_average_1m_at_end']:.2f} at end, {machine['usable_cores']} cores "
        f"({machine['cpu_model']}); written to {result['path']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

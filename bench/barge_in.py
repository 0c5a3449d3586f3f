"""Benchmark: barge-in, from the caller to the model call, on the three routes.

The real Kokoro server (real model on CPU) and the agent in front of it (replayed answer), both
on loopback as child processes. Per route, `--runs` trials, each interrupting an answer at a
random moment 0.3-0.8 s into its audio, then asking for the next answer:

- bare: the server's bidirectional route. A long one-clause sentence, `cancel` while the
  model works on it (the call that used to run to its end); then a short reply.
  interrupt -> `cancelled`, and -> the reply's first audio.
- ws: the agent's /ws. `interrupt` -> `interrupted`, and -> the next answer's first audio.
- sse: the agent's SSE route. The caller hangs up (the interrupt there), then the next
  request carries `interrupted`; hang-up -> the next answer's first audio.

The same next answers on the idle server give the reference ("idle"); the table shows each
route's p95 against it, and counts refused callers (`busy`) over all trials. Load average
and cores are recorded at start and end; a table taken while the machine was busy says so.

First, in this process, the engine alone: how long after `StopSignal.stop()` (ONNX Runtime's
`RunOptions.terminate`) a long model call returns, against the length of the call it cut
short (what a cancel cost before) and of one bounded call (the alternative: many short model
calls, each a point where a cancel could take effect).

    python -m bench.barge_in [--runs 5] [--engine-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from bench.stats import summarize
from devkit.local_stack import tts_server, voice_agent
from devkit.paths import OUT_DIR
from devkit.sse import SSEParser
from devkit.tts_client import ws_url

LONG_CLAUSE = "and the river kept on winding through the valley past the old mill " * 4
REPLY = "Okay, stopping there."
ANSWER = (
    "Your parcel left the Denver depot this morning. The driver calls about half an hour "
    "ahead. Then you sign for it at the door. That is all there is to it."
)


def engine_stops(runs: int) -> list[str]:
    """stop() -> the model call raising, on the real model in this process."""
    import threading

    from kokoro_server.config import Settings
    from kokoro_server.engine.stop import Stopped, StopSignal
    from kokoro_server.serving.synthesis import SynthesisService

    service = SynthesisService(Settings())
    service.load()
    engine = service.engine
    assert engine is not None, service.failure
    voice = engine.default_voice
    started = time.perf_counter()
    engine.synthesize(LONG_CLAUSE, voice)
    whole_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    engine.synthesize(REPLY, voice)
    short_ms = (time.perf_counter() - started) * 1000
    stops: list[float] = []
    for _ in range(runs):
        stop = StopSignal()
        when: list[float] = []

        def fire(stop: StopSignal = stop, when: list[float] = when) -> None:
            when.append(time.perf_counter())
            stop.stop()

        timer = threading.Timer(random.uniform(0.3, 0.8), fire)
        timer.start()
        try:
            engine.synthesize(LONG_CLAUSE, voice, stop=stop)
        except Stopped:
            stops.append((time.perf_counter() - when[0]) * 1000)
        timer.join()
    started = time.perf_counter()
    engine.synthesize(REPLY, voice)  # the session is still usable
    after_ms = (time.perf_counter() - started) * 1000
    s = summarize(stops)
    return [
        f"engine ({len(LONG_CLAUSE)}-char clause, one model call of {whole_ms:.0f} ms; "
        f"a short reply {short_ms:.0f} ms before, {after_ms:.0f} ms after the stops):",
        f"  stop -> call returns: median {s['median']:.1f} ms, p95 {s['p95']:.1f} ms, "
        f"max {s['max']:.1f} ms over {s['n']} stops",
    ]


def describe_load(start: dict[str, Any], end: dict[str, Any]) -> str:
    busy = "  ** taken on a BUSY machine **" if start["busy"] or end["busy"] else ""
    return (
        f"load average / cores: start {start['load_1m']}/{start['cores']}, "
        f"end {end['load_1m']}/{end['cores']}{busy}"
    )


def load() -> dict[str, Any]:
    cores = len(os.sched_getaffinity(0))
    one = os.getloadavg()[0]
    return {"load_1m": round(one, 2), "cores": cores, "busy": one > 0.5 * cores}


async def _frames_until(ws: Any, done: Any, timeout: float = 60.0) -> float:
    """Read frames until done(frame); the time it arrived."""
    async with asyncio.timeout(timeout):
        async for raw in ws:
            frame = raw if isinstance(raw, bytes) else json.loads(raw)
            if done(frame):
                return time.perf_counter()
    raise RuntimeError("connection closed early")


def _audio(frame: Any) -> bool:
    return isinstance(frame, bytes)


def _type(kind: str) -> Any:
    return lambda f: isinstance(f, dict) and f.get("type") == kind


RETRIES = {"busy_waited": 0}  # bare-route callers that had to wait out a `busy`


async def admitted(url: str) -> Any:
    """A bare-route session, waiting out `busy` like the agent does (0.1 s back-off doubling
    to 1 s, 2 s in all): a caller that connects the moment another hangs up may be refused
    before the server has seen the hang-up."""
    waited, delay = 0.0, 0.1
    while True:
        ws = await connect(url, max_queue=None)
        try:
            raw = await asyncio.wait_for(ws.recv(), 0.05)
        except TimeoutError:
            return ws  # admitted: a refusal comes at once
        except Exception:  # closed with 1013 right after the refusal
            raw = '{"code": "busy"}'
        await ws.close()
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if "busy" not in text or waited + delay > 2.0:
            raise RuntimeError(f"refused: {text}")
        RETRIES["busy_waited"] += 1
        await asyncio.sleep(delay)
        waited, delay = waited + delay, min(2 * delay, 1.0)


async def quiet(tts_base: str) -> None:
    """Until the server holds no session: the idle reference is taken on an idle server."""
    async with httpx.AsyncClient(timeout=10) as client:
        for _ in range(600):
            if not (await client.get(tts_base + "/ping")).json().get("sessions"):
                return
            await asyncio.sleep(0.05)
    raise RuntimeError("the server kept a session for 30 s")


async def bare_idle(url: str) -> float:
    async with await admitted(url) as ws:
        sent = time.perf_counter()
        await ws.send(json.dumps({"text": REPLY}))
        return (await _frames_until(ws, _audio)) - sent


async def bare_trial(url: str) -> dict[str, float]:
    async with await admitted(url) as ws:
        await ws.send(json.dumps({"text": LONG_CLAUSE}))
        await asyncio.sleep(random.uniform(0.3, 0.8))
        cut = time.perf_counter()
        await ws.send(json.dumps({"type": "cancel"}))
        acked = await _frames_until(ws, _type("cancelled"))
        await ws.send(json.dumps({"text": REPLY}))
        first = await _frames_until(ws, _audio)
    return {"ack_ms": (acked - cut) * 1000, "next_ms": (first - cut) * 1000}


async def _ws_event(ws: Any) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
    if event["type"] == "audio":
        await asyncio.wait_for(ws.recv(), 60)
    return event


async def _ws_first_audio(ws: Any) -> float:
    while True:
        event = await _ws_event(ws)
        if event["type"] == "audio":
            return time.perf_counter()
        if event["type"] in ("error", "done"):
            raise RuntimeError(f"no audio: {event}")


async def ws_idle(url: str) -> float:
    async with connect(url, max_size=None) as ws:
        sent = time.perf_counter()
        await ws.send(json.dumps({"prompt": "Where is my parcel?"}))
        return (await _ws_first_audio(ws)) - sent


async def ws_trial(url: str) -> dict[str, float]:
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"prompt": "Where is my parcel?"}))
        first = await _ws_first_audio(ws)
        await asyncio.sleep(random.uniform(0.3, 0.8))
        cut = time.perf_counter()
        played = (cut - first) * 1000
        await ws.send(json.dumps({"type": "interrupt", "played_ms": played}))
        while (event := await _ws_event(ws))["type"] not in ("interrupted", "done", "error"):
            pass
        if event["type"] != "interrupted":
            raise RuntimeError(f"interrupt answered with {event}")
        acked = time.perf_counter()
        await ws.send(json.dumps({"prompt": "Can it come sooner?"}))
        next_first = await _ws_first_audio(ws)
    return {"ack_ms": (acked - cut) * 1000, "next_ms": (next_first - cut) * 1000}


async def _sse_first_audio(client: httpx.AsyncClient, base: str, body: dict[str, Any]) -> float:
    async with client.stream("POST", base + "/invocations", json=body) as response:
        parser = SSEParser()
        async for chunk in response.aiter_bytes():
            for data in parser.feed(chunk):
                event = json.loads(data)
                if event["type"] == "audio":
                    return time.perf_counter()
                if event["type"] in ("error", "done"):
                    raise RuntimeError(f"no audio: {event}")
    raise RuntimeError("stream ended without audio")


async def sse_idle(base: str) -> float:
    async with httpx.AsyncClient(timeout=60) as client:
        sent = time.perf_counter()
        return (await _sse_first_audio(client, base, {"prompt": "Can it come sooner?"})) - sent


async def sse_trial(base: str, n: int) -> dict[str, float]:
    sid = f"bench-{n}-{random.getrandbits(32):x}"
    async with httpx.AsyncClient(timeout=60) as client:
        first = await _sse_first_audio(client, base, {"prompt": "Where?", "session_id": sid})
        await asyncio.sleep(random.uniform(0.3, 0.8))
        cut = time.perf_counter()  # leaving the stream above hung up; now the next turn
        body = {
            "prompt": "Can it come sooner?",
            "session_id": sid,
            "interrupted": {"played_ms": (cut - first) * 1000},
        }
        next_first = await _sse_first_audio(client, base, body)
    return {"next_ms": (next_first - cut) * 1000}


def _row(route: str, what: str, values: list[float], idle: float | None) -> str:
    s = summarize(values)
    ratio = f"{s['p95'] / idle:.2f}x" if idle else ""
    return f"| {route} | {what} | {s['n']} | {s['median']:.0f} | {s['p95']:.0f} | {ratio} |"


async def measure(tts_base: str, agent_base: str, runs: int) -> list[str]:
    bare_url, agent_ws = ws_url(tts_base), agent_base.replace("http://", "ws://") + "/ws"
    idle = {"bare": [], "ws": [], "sse": []}  # type: dict[str, list[float]]
    trials = {"bare": [], "ws": [], "sse": []}  # type: dict[str, list[dict[str, float]]]
    refused = 0
    for n in range(runs):  # interleaved: idle and interrupted trials see the same machine
        await quiet(tts_base)
        idle["bare"].append(1000 * await bare_idle(bare_url))
        await quiet(tts_base)
        idle["ws"].append(1000 * await ws_idle(agent_ws))
        await quiet(tts_base)
        idle["sse"].append(1000 * await sse_idle(agent_base))
        for route, trial in (
            ("bare", bare_trial(bare_url)),
            ("ws", ws_trial(agent_ws)),
            ("sse", sse_trial(agent_base, n)),
        ):
            try:
                trials[route].append(await trial)
            except (RuntimeError, OSError) as exc:
                refused += "busy" in str(exc)
                print(f"{route} trial {n} failed: {exc}")
    rows = [
        "| route | interval | n | median ms | p95 ms | p95 / idle p95 |",
        "|---|---|---|---|---|---|",
    ]
    for route in ("bare", "ws", "sse"):
        idle_p95 = summarize(idle[route])["p95"]
        rows.append(_row(route, "idle: request -> first audio", idle[route], None))
        acks = [t["ack_ms"] for t in trials[route] if "ack_ms" in t]
        if acks:
            what = "cancel -> cancelled" if route == "bare" else "interrupt -> interrupted"
            rows.append(_row(route, what, acks, None))
        nexts = [t["next_ms"] for t in trials[route]]
        if nexts:
            first = "hang-up" if route == "sse" else "interrupt"
            rows.append(_row(route, f"{first} -> next first audio", nexts, idle_p95))
    rows.append(f"\nrefused callers (busy) after interrupts and hang-ups: {refused}")
    rows.append(f"bare-route callers that waited out a brief busy: {RETRIES['busy_waited']}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine-only", action="store_true", help="only the engine stop times")
    args = parser.parse_args()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    start = load()
    engine_rows = engine_stops(args.runs)
    print("\n".join(engine_rows), flush=True)
    if args.engine_only:
        end = load()
        print(describe_load(start, end))
        return
    with (
        tts_server(log_path=OUT_DIR / "barge_in_tts.log") as tts_base,
        voice_agent(
            tts_base,
            40.0,
            OUT_DIR / "barge_in_agent.log",
            {"AGENT_REPLAY_TEXT": ANSWER},
        ) as agent_base,
    ):
        rows = asyncio.run(measure(tts_base, agent_base, args.runs))
    end = load()
    print(f"\nbarge-in, {args.runs} runs per route (real model, loopback)")
    print(describe_load(start, end))
    print("\n".join(engine_rows))
    print("\n".join(rows))
    result = {"start": start, "end": end, "engine": engine_rows, "table": rows}
    (OUT_DIR / "barge_in.json").write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

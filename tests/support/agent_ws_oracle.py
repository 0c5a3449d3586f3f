"""Client side of the agent's /ws for the fuzz tests: events with their audio, and the
oracle for messages sent while an invocation runs.

While a run is going on the agent answers every message in order: `cancel` ends the run
with a fatal `cancelled`, anything else gets a non-fatal `busy`. Once idle, a message is a
new invocation (its own run, or `bad_request`), and a `cancel` is ignored. A message sent
just as a run ends may land on either side; the oracle accepts exactly these answers, one
per message, in order, and finds where everything settled with a sentinel message.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection

SENTINEL = "[]"  # bad payload: `bad_request` when idle, `busy` during a run
INTERLEAVED: dict[str, str | bytes] = {  # text frames, and one binary frame
    "cancel": json.dumps({"type": "cancel"}),
    "invoke": json.dumps({"prompt": "a second question"}),
    "not_json": "not json {",
    "not_utf8": b"\xff\xfe\x00",
    "too_deep": "[" * 5000,
    "bad_payload": json.dumps({"prompt": 5}),
}


@dataclass
class Run:
    audio: bytearray = field(default_factory=bytearray)
    sentences: list[int] = field(default_factory=list)
    end: str | None = None  # "done" | "cancelled"

    def add(self, event: dict[str, Any], data: bytes | None) -> None:
        if event["type"] == "sentence":
            self.sentences.append(event["index"])
        elif event["type"] == "audio":
            assert self.sentences and event["index"] == self.sentences[-1], event
            assert data is not None
            self.audio.extend(data)


async def next_event(ws: ClientConnection, timeout: float) -> tuple[dict[str, Any], bytes | None]:
    """One event; an `audio` header comes with the binary frame that must follow it."""
    frame = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(frame, str), "binary frame without an audio header"
    event = json.loads(frame)
    if event["type"] != "audio":
        return event, None
    data = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(data, bytes) and len(data) == event["bytes"], event
    return event, data


async def read_run(ws: ClientConnection, timeout: float) -> Run:
    """Events of one invocation until `done` (any error fails)."""
    run = Run()
    while True:
        event, data = await next_event(ws, timeout)
        assert event["type"] != "error", event
        if event["type"] == "done":
            run.end = "done"
            return run
        run.add(event, data)


@dataclass
class Interleaving:
    runs: list[Run]
    busy: int = 0
    answered_after_run: int = 0
    cancels_ignored: int = 0


async def interleave(
    ws: ClientConnection, invocation: str, kinds: list[str], timeout: float
) -> Interleaving:
    """Start `invocation`, send `kinds` once its first text arrived, and settle."""
    await ws.send(invocation)
    first, _ = await next_event(ws, timeout)
    assert first["type"] == "text", first
    result = Interleaving(runs=[Run()])
    pending: deque[str] = deque()
    for kind in kinds:
        await ws.send(INTERLEAVED[kind])
        pending.append(kind)
    log: list[str] = []  # what happened, for the failure message
    try:
        return await _settle(ws, pending, result, log, timeout)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nsent after the invocation: {kinds}\nlog: {log}") from None


async def _settle(
    ws: ClientConnection,
    pending: deque[str],
    result: Interleaving,
    log: list[str],
    timeout: float,
) -> Interleaving:
    running, sentinel_out = True, False
    while True:
        if not running and not sentinel_out and all(k == "cancel" for k in pending):
            await ws.send(SENTINEL)
            log.append("-> sentinel")
            pending.append("sentinel")
            sentinel_out = True
        event, data = await next_event(ws, timeout)
        kind = event["type"]
        log.append(f"{kind}:{event.get('code', '')}" if kind == "error" else kind)
        if not running:
            while pending and pending[0] == "cancel":  # idle: a cancel is ignored
                pending.popleft()
                result.cancels_ignored += 1
            if pending and pending[0] == "invoke":
                # The next request started a run: this event is its first, or the `busy` of
                # a message that came before the run's first event.
                pending.popleft()
                result.answered_after_run += 1
                result.runs.append(Run())
                running = True
        if running and kind in ("text", "sentence", "words", "audio", "done"):
            result.runs[-1].add(event, data)
            if kind == "done":
                result.runs[-1].end, running = "done", False
            continue
        if running and kind == "error" and event["code"] == "cancelled":
            assert pending.popleft() == "cancel" and event["fatal"] is True, event
            result.runs[-1].end, running = "cancelled", False
            continue
        assert pending, f"answer to no message: {event}"
        answered = pending.popleft()
        assert answered != "cancel", f"cancel answered with {event}"
        if kind == "error" and event["code"] == "busy":  # the run (or its tail) was going on
            assert running and event["fatal"] is False, event
            result.busy += answered != "sentinel"
            sentinel_out = sentinel_out and answered != "sentinel"
            continue
        assert not running, f"{answered} answered with {event} during a run"
        result.answered_after_run += answered != "sentinel"
        assert kind == "error" and event["code"] == "bad_request" and event["fatal"], event
        if answered == "sentinel":
            assert not pending, pending
            return result

"""Sessions must progress or close: a client that stops reading its audio is dropped after
KOKORO_SEND_STALL_S and its slot freed at once; while its writes wait it no longer counts
for admission; a session expires once nothing happened for KOKORO_IDLE_TIMEOUT_S, text
pending or not; and a one-shot request goes through the same admission as a session.

Real server (served as `serve` serves it) on loopback with the tone test double; the stalled
client is the real `websockets` client with a tiny receive buffer that never reads (its
queue full, it stops reading the socket, as a client that stopped playing would)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.support.servers import ThreadedServer
from tests.support.stalled_client import STALLING_SENTENCE, non_reader
from tests.support.ws_frames import is_type, read_until, send

WAIT_S = 20.0  # bound on every wait, far beyond the timeouts used: no timing is asserted
SENTENCES = 60  # of STALLING_SENTENCE at half speed: 13 MB of audio


async def _queue_lots(ws: ClientConnection) -> None:
    await send(ws, {"type": "start", "speed": 0.5})
    for _ in range(SENTENCES):
        await send(ws, {"type": "text", "text": STALLING_SENTENCE})
    await send(ws, {"type": "flush"})


def _wait_for(condition: Callable[[], bool], timeout: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _records(
    caplog: pytest.LogCaptureFixture, msg: str, server: ThreadedServer
) -> list[dict[str, Any]]:
    """The fields of `msg` records that this server logged (its own thread), none other's."""
    thread = server._thread.ident
    return [
        getattr(r, "fields", {})
        for r in caplog.records
        if r.getMessage() == msg and r.thread == thread
    ]


async def _spoken(url: str, text: str) -> list[Any]:
    async with connect(url, max_queue=None) as ws:
        await send(ws, {"type": "text", "text": text})
        await send(ws, {"type": "close"})
        return await read_until(ws, is_type("session_end"), timeout=WAIT_S)


def test_a_client_that_stops_reading_is_dropped_and_its_slot_freed(
    make_tone_server: Callable[..., ThreadedServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kokoro")
    server = make_tone_server(max_sessions=1, send_stall_s=1.0)

    async def scenario() -> tuple[bool, list[Any]]:
        stalled = await non_reader(server.ws)
        try:
            await _queue_lots(stalled)
            # Refused while the stalled session holds the only slot...
            assert _wait_for(lambda: server.active_sessions() == 1)
            freed = await asyncio.to_thread(_wait_for, lambda: server.active_sessions() == 0)
            # ...and served once the server dropped it.
            return freed, await _spoken(server.ws, "Next caller.")
        finally:
            stalled.transport.abort()

    freed, frames = asyncio.run(scenario())
    assert freed, "the session of a client that reads nothing kept its slot"
    assert any(isinstance(f, bytes) for f in frames)
    stalled = [r for r in _records(caplog, "session stalled", server)]
    assert len(stalled) == 1 and "accepted no audio for 1 s" in stalled[0]["reason"]
    ends = _records(caplog, "session end", server)
    assert [e["ended"] for e in ends] == ["stalled", "close"]
    assert server.session_tasks() == []


def test_a_session_whose_writes_wait_stops_counting_for_admission(
    make_tone_server: Callable[..., ThreadedServer],
) -> None:
    server = make_tone_server(send_stall_s=30.0)

    async def scenario() -> tuple[bool, bool]:
        stalled = await non_reader(server.ws)
        try:
            await _queue_lots(stalled)
            counted = await asyncio.to_thread(_wait_for, lambda: server.demanding_sessions() == 1)
            # Still open (the stall limit is far off), no longer asking for synthesis.
            uncounted = await asyncio.to_thread(
                _wait_for,
                lambda: server.active_sessions() == 1 and server.demanding_sessions() == 0,
            )
            return counted, uncounted
        finally:
            stalled.transport.abort()

    counted, uncounted = asyncio.run(scenario())
    assert counted and uncounted


def test_a_session_expires_without_progress_even_with_sentences_pending(
    make_tone_server: Callable[..., ThreadedServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kokoro")
    # Each sentence takes 3 s of "inference": nothing reaches the client for 3 s.
    server = make_tone_server(delay_s=3.0, idle_timeout_s=0.5)

    async def scenario() -> list[Any]:
        async with connect(server.ws, max_queue=None) as ws:
            await send(ws, {"type": "text", "text": "One sentence. Another sentence."})
            await send(ws, {"type": "flush"})
            return await read_until(ws, is_type("error"), timeout=WAIT_S)

    frames = asyncio.run(scenario())
    assert frames[-1]["code"] == "idle_timeout" and frames[-1]["fatal"] is True
    assert not any(isinstance(f, bytes) for f in frames)  # ended before the first audio
    assert _wait_for(lambda: server.active_sessions() == 0)
    assert [e["ended"] for e in _records(caplog, "session end", server)] == ["idle"]


def test_a_one_shot_request_and_a_session_share_one_admission(
    make_tone_server: Callable[..., ThreadedServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kokoro")
    server = make_tone_server(delay_s=1.0, max_sessions=1)
    one_shot = f"{server.http}/invocations"

    async def scenario() -> tuple[httpx.Response, dict[str, Any], httpx.Response]:
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            # A session holds the only slot: the one-shot request is refused...
            async with connect(server.ws, max_queue=None) as ws:
                await send(ws, {"type": "text", "text": "Hold the slot."})
                assert await asyncio.to_thread(_wait_for, lambda: server.active_sessions() == 1)
                refused = await client.post(one_shot, json={"text": "Refused."})
                await send(ws, {"type": "close"})
                await read_until(ws, is_type("session_end"), timeout=WAIT_S)
            assert await asyncio.to_thread(_wait_for, lambda: server.active_sessions() == 0)
            # ...and a one-shot request in synthesis holds it against a session.
            running = asyncio.create_task(
                client.post(one_shot, json={"text": "First part. Second part."})
            )
            assert await asyncio.to_thread(_wait_for, lambda: server.active_sessions() == 1)
            async with connect(server.ws, max_queue=None) as ws:
                busy = (await read_until(ws, is_type("error"), timeout=WAIT_S))[-1]
            assert isinstance(busy, dict)
            return refused, busy, await running

    refused, busy, served = asyncio.run(scenario())
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "busy"
    assert busy["code"] == "busy" and busy["fatal"] is True
    assert served.status_code == 200 and served.headers["x-sentences"] == "2"
    causes = [(r["cause"], r.get("route")) for r in _records(caplog, "session refused", server)]
    assert causes == [("session_limit", "one-shot"), ("session_limit", None)]
    assert server.active_sessions() == 0


def test_the_session_record_says_what_the_caller_got(
    make_tone_server: Callable[..., ThreadedServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kokoro")
    server = make_tone_server(delay_s=0.2)
    frames = asyncio.run(_spoken(server.ws, "First one. Second one."))
    assert frames[-1]["sentences"] == 2
    assert _wait_for(lambda: server.active_sessions() == 0)  # its record is written by then
    (end,) = _records(caplog, "session end", server)
    assert end["ended"] == "close" and end["unspoken"] == 0 and end["dropped"] == 0
    # First sound waits for one simulated inference (0.2 s) at least.
    assert end["first_sound_ms"] >= 200
    sent = _records(caplog, "sentence sent", server)
    assert [s["index"] for s in sent] == [0, 1]
    assert all(
        s["rtf"] == pytest.approx(s["synth_ms"] / 1000 / s["audio_s"], abs=1e-3) for s in sent
    )

"""Session limits (disconnects, admission, idle timeout, queue and buffer limits) against a
real uvicorn server over real sockets, with the tone test double instead of the model: these
tests are about the session, not the audio (the real model keeps the audio tests in
test_session_protocol.py)."""

from __future__ import annotations

import asyncio
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.ws_frames import controls, errors, is_type, read_until, send


async def test_client_disconnect_mid_sentence_leaves_no_task(make_tone_server):
    srv = make_tone_server(delay_s=1.0)  # the sentence is still being synthesized
    ws = await connect(srv.ws)
    await send(
        ws, {"type": "text", "text": "A sentence that takes a while to say out loud. And more."}
    )
    await read_until(ws, is_type("sentence_start"))
    assert srv.active_sessions() == 1 and len(srv.session_tasks()) == 3
    ws.transport.abort()  # drop the TCP connection without a close handshake
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (srv.active_sessions() or srv.session_tasks()):
        await asyncio.sleep(0.1)
    assert srv.active_sessions() == 0
    assert srv.session_tasks() == []


async def test_sessions_beyond_the_limit_get_busy(make_tone_server):
    srv = make_tone_server(max_sessions=1)
    async with connect(srv.ws) as first:
        await send(first, {"type": "cancel"})
        await read_until(first, is_type("cancelled"))  # the first session is registered
        async with connect(srv.ws) as second:
            frames = await read_until(second, is_type("error"), timeout=5)
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(second.recv(), 5)
    assert controls(frames)[-1]["code"] == "busy" and controls(frames)[-1]["fatal"] is True
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013


async def test_idle_session_is_closed_with_a_final_message(make_tone_server):
    srv = make_tone_server(idle_timeout_s=0.5)
    async with connect(srv.ws) as ws:
        frames = await read_until(ws, is_type("error"), timeout=5)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
    assert controls(frames)[-1]["code"] == "idle_timeout"
    assert controls(frames)[-1]["fatal"] is True


async def test_queue_limit_rejects_text_with_a_clear_error(make_tone_server):
    # Each sentence takes 1 s, so the queue is still full when "Five." arrives.
    srv = make_tone_server(delay_s=1.0, max_queued_sentences=2)
    async with connect(srv.ws) as ws:
        await send(ws, {"type": "text", "text": "One. Two. Three. Four. "})
        await send(ws, {"type": "text", "text": "Five. "})
        frames = await read_until(ws, is_type("error"))
        await send(ws, {"type": "cancel"})
        await read_until(ws, is_type("cancelled"))
    assert errors(frames)[-1]["code"] == "queue_full" and errors(frames)[-1]["fatal"] is False


async def test_buffered_text_limit(make_tone_server):
    srv = make_tone_server(max_buffered_chars=50)
    async with connect(srv.ws) as ws:
        await send(ws, {"type": "text", "text": "x" * 40})
        await send(ws, {"type": "text", "text": "y" * 20})
        frames = await read_until(ws, is_type("error"))
    assert errors(frames)[-1]["code"] == "text_too_long"

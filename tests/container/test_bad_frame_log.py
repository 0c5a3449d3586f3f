"""A bad frame is answered with its error and logged as one line, without a traceback; a
client that keeps sending them gets each answered but only the first few logged, and the
session's "session end" record counts them all. Real server on loopback (tone test double)
and the real `websockets` client; the agent's /ws does the same (tests/agent)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import pytest
from websockets.asyncio.client import connect

from tests.support.log_records import log_fields
from tests.support.servers import ThreadedServer
from tests.support.ws_frames import Frame, is_type, read_until, send

BAD_FRAMES = 12


def test_bad_frames_are_logged_one_line_each_then_counted(
    make_tone_server: Callable[..., ThreadedServer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kokoro")
    server = make_tone_server()

    async def scenario() -> list[Frame]:
        async with connect(server.ws, max_queue=None) as ws:
            for n in range(BAD_FRAMES):
                await ws.send("{" * (n + 1))  # truncated JSON
            await send(ws, {"type": "start", "speed": 10**500})
            await send(ws, {"type": "close"})
            return await read_until(ws, is_type("session_end"), timeout=20)

    frames = asyncio.run(scenario())
    deadline = time.monotonic() + 10  # the "session end" record follows the last frame
    while server.active_sessions() and time.monotonic() < deadline:
        time.sleep(0.02)
    errors = [f for f in frames if isinstance(f, dict) and f["type"] == "error"]
    assert len(errors) == BAD_FRAMES + 1  # every one answered
    logged = [r for r in caplog.records if r.getMessage().startswith("bad frame")]
    assert len(logged) == 5
    assert [log_fields(r)["code"] for r in logged] == ["invalid_json"] * 5
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in logged)
    assert "later ones are counted" in logged[-1].getMessage()
    (session,) = {log_fields(r)["session"] for r in logged}
    (end,) = [
        r
        for r in caplog.records
        if r.getMessage() == "session end" and log_fields(r)["session"] == session
    ]
    assert log_fields(end)["bad_frames"] == BAD_FRAMES + 1

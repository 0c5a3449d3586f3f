"""A bad /ws message is answered `bad_request` and logged as one line without a traceback;
past the first few only their count is logged, once, when the connection ends. The real
agent app on loopback with FakeTtsServer (test double) behind it; real `websockets` client."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest
from websockets.asyncio.client import connect

from tests.support.servers import AgentStack

BAD_MESSAGES = 9


def test_bad_messages_are_logged_one_line_each_then_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="voice_agent")
    stack = AgentStack().start()
    try:

        async def scenario() -> list[dict[str, object]]:
            answers = []
            async with connect(stack.ws) as ws:
                for n in range(BAD_MESSAGES):
                    await ws.send(b"\xff" if n % 2 else "[" * (n + 2))
                    answers.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            return answers

        answers = asyncio.run(scenario())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _records(caplog, "bad messages"):
            time.sleep(0.05)
    finally:
        stack.stop()
    assert [a["code"] for a in answers] == ["bad_request"] * BAD_MESSAGES
    logged = _records(caplog, "bad message")
    assert len(logged) == 5
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in logged)
    assert {r.fields["code"] for r in logged} == {"bad_request"}  # type: ignore[attr-defined]
    (total,) = _records(caplog, "bad messages")
    assert total.fields["count"] == BAD_MESSAGES  # type: ignore[attr-defined]


def _records(caplog: pytest.LogCaptureFixture, msg: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == msg]

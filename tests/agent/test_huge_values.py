"""Payload values far outside any field's range, on the agent app over loopback (FakeTtsServer
as the TTS): a number longer than Python converts (4,300 digits), one too large for a float,
infinities, a 20,000-character voice, a 200,000-character mode. Each is the caller's mistake
(HTTP 400 or a `bad_request` event), never a server error, quotes at most a short excerpt of
the value, and the next invocation is answered."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.agent_client import invoke_http, invoke_ws
from devkit.agent_events import sse_event
from devkit.loopback import serve
from tests.support.fake_tts import FakeTtsServer
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

HUGE = "9" * 5000  # past Python's integer-conversion limit: json.loads alone raises on it
BIG = "9" * 401  # converts to an int, but not to a float
PROMPT = '"where is my order?"'

# Bodies the SSE route's JSON decoder (the SDK's) cannot read: a number in every field.
UNREADABLE = [
    *[
        f'{{"prompt": {PROMPT}, "{name}": {sign}{HUGE}}}'
        for name in ("speed", "mode", "voice", "format", "session_id")
        for sign in ("", "-")
    ],
    f'{{"prompt": {PROMPT}, "interrupted": {{"played_ms": {HUGE}}}}}',
    f'{{"prompt": {HUGE}}}',
]
# Bodies that decode, with a value no field takes.
OUT_OF_RANGE = [
    *[f'{{"prompt": {PROMPT}, "speed": {value}}}' for value in (BIG, "-" + BIG, "1e999", "-1e999")],
    *[
        f'{{"prompt": {PROMPT}, "interrupted": {{"played_ms": {value}}}}}'
        for value in (BIG, "1e999", "-1e999")
    ],
    f'{{"prompt": {PROMPT}, "voice": "{"a" * 20_000}"}}',
    f'{{"prompt": {PROMPT}, "mode": "{"m" * 200_000}"}}',
    f'{{"prompt": {PROMPT}, "format": "{"f" * 200_000}"}}',
    f'{{"prompt": {PROMPT}, "{"k" * 200_000}": 1}}',
]


def make_app(tts_url: str):
    return create_app(AgentSettings(), ReplayedAnswerSource("It shipped."), WebSocketTts(tts_url))


def assert_short(message: str) -> None:
    # A message that names the problem, quoting no more than an excerpt of the value.
    assert message and len(message) <= 300, message[:400]
    assert not re.search(r"9{100}|a{100}|m{100}|f{100}|k{100}", message)


def sse_errors(body: str) -> list[dict]:
    events = [sse_event(line[len("data: ") :])[0] for line in body.splitlines() if line]
    assert [e["type"] for e in events] == ["error"], body[:300]
    return events


async def test_sse_refuses_huge_values_as_the_callers_mistake() -> None:
    async with FakeTtsServer() as tts, serve(make_app(tts.url)) as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            for body in UNREADABLE:
                r = await client.post("/invocations", content=body)
                assert r.status_code == 400, (body[:60], r.status_code, r.text[:300])
                assert r.json()["error"] == "Invalid JSON"
                assert_short(r.json()["details"])
            for body in OUT_OF_RANGE:
                r = await client.post("/invocations", content=body)
                assert r.status_code == 200, (body[:60], r.status_code, r.text[:300])
                [error] = sse_errors(r.text)
                assert error["code"] == "bad_request", (body[:60], error)
                assert_short(error["message"])
        assert tts.sessions == []  # nothing invalid reached the TTS
        after = await invoke_http(base, {"prompt": "again"})
    assert after.order[-1] == "done" and not after.errors


@pytest.mark.parametrize("binary", [False, True])
async def test_ws_refuses_huge_values_and_the_connection_goes_on(binary: bool) -> None:
    interrupts = [f'{{"type": "interrupt", "played_ms": {v}}}' for v in (HUGE, BIG, "1e999")]
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url)) as base,
        connect(base.replace("http", "ws") + "/ws", max_size=None) as ws,
    ):
        for body in [*UNREADABLE, *OUT_OF_RANGE, *interrupts]:
            await ws.send(body.encode() if binary else body)
            event = json.loads(await ws.recv())
            assert (event["type"], event["code"]) == ("error", "bad_request"), (body[:60], event)
            assert_short(event["message"])
        assert tts.sessions == []
        await ws.send(json.dumps({"prompt": "again"}))
        last: dict = {}
        while last.get("type") not in ("done", "error"):
            frame = await ws.recv()
            if isinstance(frame, str):
                last = json.loads(frame)
        assert last["type"] == "done"
        again = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "once more"})
    assert again.order[-1] == "done" and not again.errors

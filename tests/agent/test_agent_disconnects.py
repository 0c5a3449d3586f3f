"""The caller leaves the agent mid-answer, at each phase, over SSE and /ws (close frame and
abrupt TCP reset): the TTS session gets `cancel` and is closed (never `close`: nothing more
is to be synthesized), and no asyncio task or thread of the invocation is left.

Phases: before the first text (the TTS session is open, the answer's first token is still
0.5 s away), mid-text (text has arrived, the first sentence's audio is still 1 s away) and
mid-audio (the first audio event arrived; the answer has seconds to go).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Awaitable, Callable

import httpx
import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.loopback import serve
from tests.support.fake_tts import FakeSession, FakeTtsServer
from tests.support.servers import leftover_tasks_and_threads
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

LONG = "Hi. " + "More words keep coming. " * 40  # seconds of text after the first sentence
PHASES = ("before_text", "mid_text", "mid_audio")


def reached(phase: str, tts: FakeTtsServer) -> Callable[[str], bool]:
    """Whether an event (SSE data or /ws text frame) puts the caller in `phase`."""
    if phase == "before_text":  # nothing has come yet, but the TTS session was started
        return lambda _line: bool(tts.sessions) and "start" in tts.sessions[-1].types()
    if phase == "mid_text":
        return lambda line: '"type": "text"' in line
    return lambda line: '"type": "audio"' in line


def agent_for(phase: str, tts: FakeTtsServer) -> object:
    delay = 0.5 if phase == "before_text" else 0.0
    source = ReplayedAnswerSource(LONG, tokens_per_s=20, first_token_delay_s=delay)
    return create_app(AgentSettings(), source, WebSocketTts(tts.url))


async def warm_up(base: str) -> None:
    """One request first, so the server's thread pool exists before threads are counted."""
    async with httpx.AsyncClient() as client:
        assert (await client.post(base + "/invocations", json={"prompt": ""})).status_code == 200


async def read_until(next_item: Callable[[], Awaitable[str | bytes]], is_there: Callable) -> None:
    """Read items until one puts the caller in the phase (also checked while none arrives)."""
    pending = asyncio.ensure_future(next_item())
    try:
        while not is_there(""):
            done, _ = await asyncio.wait({pending}, timeout=0.02)
            if pending in done:
                item = pending.result()
                if isinstance(item, str) and is_there(item):
                    return
                pending = asyncio.ensure_future(next_item())
    finally:
        pending.cancel()
        with contextlib.suppress(BaseException):
            await pending


async def leave_sse(base: str, is_there: Callable[[str], bool]) -> None:
    async with (
        httpx.AsyncClient() as client,
        client.stream("POST", base + "/invocations", json={"prompt": "hi"}) as response,
    ):
        lines = response.aiter_lines()
        await read_until(lambda: anext(lines), is_there)
    # leaving the block closed the connection


async def leave_ws(base: str, is_there: Callable[[str], bool], abrupt: bool) -> None:
    async with connect(base.replace("http", "ws") + "/ws") as ws:
        await ws.send(json.dumps({"prompt": "hi"}))
        await read_until(ws.recv, is_there)
        if abrupt:
            ws.transport.abort()


async def wait_for_session(tts: FakeTtsServer) -> FakeSession:
    async with asyncio.timeout(5):
        while not tts.sessions:
            await asyncio.sleep(0.01)
    session = tts.sessions[-1]
    await asyncio.wait_for(session.closed.wait(), 5)
    return session


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("transport", ["sse", "ws-close-frame", "ws-tcp-reset"])
async def test_caller_leaves_and_the_tts_session_is_cancelled(phase: str, transport: str) -> None:
    synth_delay = 1.0 if phase == "mid_text" else 0.05  # mid_text: no audio before 1 s
    tts = FakeTtsServer(synth_delay_s=synth_delay)
    async with tts, serve(agent_for(phase, tts)) as base:
        await warm_up(base)
        before, threads_before = asyncio.all_tasks(), set(threading.enumerate())
        is_there = reached(phase, tts)
        if transport == "sse":
            await asyncio.wait_for(leave_sse(base, is_there), 10)
        else:
            await asyncio.wait_for(leave_ws(base, is_there, transport.endswith("reset")), 10)
        session = await wait_for_session(tts)
        leaked = await leftover_tasks_and_threads(before, threads_before, within_s=2.0)
        async with httpx.AsyncClient() as client:  # the runtime is idle again
            ping = (await client.get(base + "/ping")).json()
    assert not leaked, leaked
    types = session.types()
    assert types[0] == "start" and "cancel" in types and "close" not in types, types
    if phase == "mid_text":
        assert session.audio_bytes == 0  # it really left before any audio
    assert ping["status"] == "Healthy"


async def test_ws_next_invocation_sent_on_done_is_served_not_busy() -> None:
    """Regression: after `done` the run still closes its TTS session; an invocation sent
    the moment `done` arrived was answered `busy` (and dropped) during that clean-up."""
    async with FakeTtsServer(synth_delay_s=0.0) as tts:
        agent = create_app(
            AgentSettings(), ReplayedAnswerSource("Hi there.", 2000), WebSocketTts(tts.url)
        )
        async with serve(agent) as base, connect(base.replace("http", "ws") + "/ws") as ws:
            finals = []
            for n in range(15):
                await ws.send(json.dumps({"prompt": f"question {n}"}))
                while True:
                    frame = await asyncio.wait_for(ws.recv(), 5)
                    if isinstance(frame, str) and json.loads(frame)["type"] in ("done", "error"):
                        finals.append(json.loads(frame))
                        break
    assert [f["type"] for f in finals] == ["done"] * 15, finals

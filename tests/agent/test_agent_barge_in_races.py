"""Interrupts and hang-ups at every phase of an answer: the real agent app (/ws and SSE) on
the real Kokoro container app over loopback.

The TTS behind the agent is the container app with the tone test double (devkit/tone.py:
sine audio, a sleep per sentence that stops when the sentence is cancelled), so the loops
are fast; the text source is the agent's ReplayedAnswerSource. Phases: before any audio,
mid-sentence, between sentences, after the LLM is done (the agent has sent `close`), and
repeated interrupts. Each loop asserts: `interrupted` comes (and nothing after it), the
kept words are only whole sentences whose audio reached the caller, the TTS server's
admission count is back to zero, and the next answer's audio starts and completes.
KOKORO_RACE_LOOPS (default 2) sets the loop count; CI raises it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import ClientConnection, connect

from devkit.loopback import AppServer
from devkit.sse import SSEParser
from devkit.tone import ToneSynthesisService
from kokoro_server.config import Settings
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

pytestmark = pytest.mark.slow  # every race loops KOKORO_RACE_LOOPS times

LOOPS = int(os.environ.get("KOKORO_RACE_LOOPS", "2"))
SENTENCES = [
    "Your parcel left the depot today.",
    "The driver calls ahead before arriving.",
    "Then you sign for it at the door.",
    "That is all there is to it.",
]
ANSWER = " ".join(SENTENCES)


@pytest.fixture
def stack(base_settings: Settings) -> Iterator[tuple[ThreadedServer, AppServer]]:
    """The tone-double TTS server (0.4 s per sentence) and the agent in front of it."""
    settings = dataclasses.replace(base_settings, max_load=1.0)
    service = ToneSynthesisService(settings, delay_s=0.4)
    service.load()
    tts = ThreadedServer(settings, service).start()
    app = create_app(
        AgentSettings(),
        ReplayedAnswerSource(ANSWER, tokens_per_s=400.0),
        WebSocketTts(tts.ws),
    )
    try:
        with AppServer(app) as agent:
            yield tts, agent
    finally:
        tts.stop()
        service.shutdown()


async def read(ws: ClientConnection) -> dict[str, Any]:
    event = json.loads(await asyncio.wait_for(ws.recv(), 20))
    if event["type"] == "audio":
        await asyncio.wait_for(ws.recv(), 20)  # its binary frame
    return event


async def until(ws: ClientConnection, done) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or not done(events[-1]):
        events.append(await read(ws))
    return events


def last(event: dict[str, Any]) -> bool:
    """An answer's last event. (The tone double has no word timestamps: every answer starts
    with a non-fatal `tts_word_timestamps_unavailable` error, which is not its end.)"""
    kind = event["type"]
    return kind in ("interrupted", "done") or (kind == "error" and event.get("fatal", True))


def fatal_errors(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "error" and e.get("fatal", True)]


def wait_until(check, what: str, timeout: float = 5.0) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, f"never: {what}"
        time.sleep(0.005)


def agent_idle(agent: AppServer) -> bool:
    """The agent's /ping (the AgentCore SDK's) says Healthy once no invocation is running."""
    return bool(httpx.get(agent.http + "/ping", timeout=5).json()["status"] == "Healthy")


def kept_only_delivered(heard: str, events: list[dict[str, Any]]) -> None:
    """Without word timestamps (the tone double has none) a sentence is kept only whole,
    and only once the next sentence (or `done`) reached the caller: its audio was sent."""
    started = [e["index"] for e in events if e["type"] == "sentence"]
    whole = SENTENCES[: max(0, len(started) - 1)] if started else []
    assert heard in {" ".join(SENTENCES[:n]) for n in range(len(whole) + 1)}, heard


PHASES = ["before-audio", "mid-sentence", "between-sentences", "after-llm-done", "repeated"]


@pytest.mark.parametrize("phase", PHASES)
def test_ws_interrupt_at_each_phase(stack, phase):
    tts, agent = stack
    url = agent.http.replace("http://", "ws://") + "/ws"

    async def run() -> None:
        async with connect(url, max_size=None) as ws:
            for _ in range(LOOPS):
                await ws.send(json.dumps({"prompt": "Where is it?"}))
                seen: list[dict[str, Any]] = []
                if phase == "mid-sentence":
                    seen += await until(ws, lambda e: e["type"] == "audio")
                elif phase == "between-sentences":
                    seen += await until(ws, lambda e: e["type"] == "sentence" and e["index"] == 1)
                elif phase in ("after-llm-done", "repeated"):
                    # 400 tokens/s: the whole answer was written (and `close` sent) long
                    # before the tone double spoke its first sentence.
                    seen += await until(ws, lambda e: e["type"] == "audio")
                await ws.send(json.dumps({"type": "interrupt", "played_ms": 1e6}))
                seen += await until(ws, last)
                final = seen[-1]
                assert final["type"] == "interrupted", final
                kept_only_delivered(final["heard"], seen)
                if phase == "repeated":  # a larger played_ms later cannot bring words back
                    await ws.send(json.dumps({"type": "interrupt", "played_ms": 2e6}))
                    again = await read(ws)
                    assert again["type"] == "interrupted"
                    assert final["heard"].startswith(again["heard"])
                with pytest.raises(TimeoutError):  # nothing follows `interrupted`
                    await asyncio.wait_for(ws.recv(), 0.3)
                wait_until(lambda: tts.demanding_sessions() == 0, "TTS admission count zero")
                # The next answer speaks at once, to its end.
                await ws.send(json.dumps({"prompt": "And then?"}))
                answer = await until(ws, last)
                assert answer[-1]["type"] == "done", answer[-1]
                assert [e["index"] for e in answer if e["type"] == "sentence"] == [0, 1, 2, 3]
        wait_until(lambda: tts.active_sessions() == 0, "TTS sessions released")

    asyncio.run(run())


@pytest.mark.parametrize("phase", ["before-audio", "mid-sentence", "after-llm-done"])
def test_sse_hang_up_at_each_phase_frees_the_tts(stack, phase):
    """An SSE caller that hangs up: the TTS session goes at once, and the next caller is
    never refused (the agent would wait out a brief `busy`, but none comes)."""
    tts, agent = stack

    async def hang_up() -> None:
        async with (
            httpx.AsyncClient(timeout=20) as client,
            client.stream("POST", agent.http + "/invocations", json={"prompt": "hi"}) as r,
        ):
            if phase == "before-audio":
                return
            parser = SSEParser()
            async for chunk in r.aiter_bytes():
                if any(json.loads(d)["type"] == "audio" for d in parser.feed(chunk)):
                    return

    async def next_caller() -> list[dict[str, Any]]:
        events = []
        async with (
            httpx.AsyncClient(timeout=30) as client,
            client.stream("POST", agent.http + "/invocations", json={"prompt": "hi"}) as r,
        ):
            parser = SSEParser()
            async for chunk in r.aiter_bytes():
                events += [json.loads(d) for d in parser.feed(chunk)]
        return events

    for _ in range(LOOPS):
        asyncio.run(hang_up())
        # A hang-up before audio can cancel the agent's TTS open mid-handshake: the server then
        # sees that connection start and end just after the agent's invocation has finished,
        # so wait for the agent to be idle, then for the server to hold and count nothing.
        wait_until(lambda: agent_idle(agent), "the agent's invocation ended")
        wait_until(
            lambda: tts.active_sessions() == 0 and tts.demanding_sessions() == 0,
            "TTS session released and no longer counted by admission",
        )
        events = asyncio.run(next_caller())
        assert fatal_errors(events) == []
        assert events[-1]["type"] == "done"


@pytest.mark.parametrize("budget_s", [3.0, 0.3])
def test_agent_waits_out_a_brief_busy(base_settings: Settings, budget_s: float) -> None:
    """The TTS server is full (one session allowed, held by another caller for 0.8 s): the
    agent retries and answers in full within its budget; past the budget the caller gets
    `tts_busy`."""
    settings = dataclasses.replace(base_settings, max_sessions=1)
    service = ToneSynthesisService(settings)
    service.load()
    tts = ThreadedServer(settings, service).start()
    app = create_app(
        AgentSettings(tts_busy_wait_s=budget_s),
        ReplayedAnswerSource(ANSWER, tokens_per_s=400.0),
        WebSocketTts(tts.ws),
    )

    async def run() -> list[dict[str, Any]]:
        holder = await connect(tts.ws)
        events: list[dict[str, Any]] = []

        async def caller() -> None:
            async with (
                httpx.AsyncClient(timeout=30) as client,
                client.stream("POST", agent.http + "/invocations", json={"prompt": "hi"}) as r,
            ):
                parser = SSEParser()
                async for chunk in r.aiter_bytes():
                    events.extend(json.loads(d) for d in parser.feed(chunk))

        calling = asyncio.create_task(caller())
        await asyncio.sleep(0.8)
        await holder.close()
        await calling
        return events

    try:
        with AppServer(app) as agent:
            events = asyncio.run(run())
    finally:
        tts.stop()
        service.shutdown()
    if budget_s > 1.0:
        assert fatal_errors(events) == []
        assert events[-1]["type"] == "done"
        assert len([e for e in events if e["type"] == "sentence"]) == len(SENTENCES)
    else:
        assert [e["code"] for e in fatal_errors(events)] == ["tts_busy"]

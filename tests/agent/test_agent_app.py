"""The AgentCore app on a real uvicorn (loopback) with FakeTtsServer: SSE, /ws, /ping, errors
and /ws cancel. Caller disconnects at each phase: tests/agent/test_agent_disconnects.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.agent_client import invoke_http, invoke_ws
from devkit.loopback import serve
from tests.support.fake_tts import FakeTtsServer
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"


LONG = "Hi. " + "More words keep coming. " * 40  # seconds of text after the first sentence


def make_app(tts_url: str, rate: float = 200.0, answer: str = ANSWER):
    return create_app(
        AgentSettings(), ReplayedAnswerSource(answer, tokens_per_s=rate), WebSocketTts(tts_url)
    )


def check_order(order: list[str]) -> None:
    assert order[-1] == "done"
    assert order.count("done") == 1 and "error" not in order
    assert order.index("text") < order.index("sentence") < order.index("audio")


async def test_sse_and_ws_deliver_the_same_events_and_all_audio() -> None:
    async with FakeTtsServer() as tts, serve(make_app(tts.url)) as base:
        sse = await invoke_http(base, {"prompt": "where is my order?"})
        ws = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "again"})
    check_order(sse.order)
    check_order(ws.order)
    # Same events (/ws just carries audio as binary frames); only where text deltas fall
    # between audio events depends on timing.
    assert [k for k in sse.order if k != "text"] == [k for k in ws.order if k != "text"]
    assert sse.order.count("text") == ws.order.count("text")
    assert sse.text == ws.text == ANSWER
    assert sse.pcm() == ws.pcm()
    assert sse.audio_bytes == tts.sessions[0].audio_bytes == sse.metrics["audio_bytes"]
    assert ws.audio_bytes == tts.sessions[1].audio_bytes
    assert sse.pcm()[:1] == b"{"  # PCM starting with '{' survived both encodings


async def test_bad_payloads_get_clear_error_events() -> None:
    async with FakeTtsServer() as tts, serve(make_app(tts.url)) as base:
        cases: list[tuple[dict[str, Any], str]] = [
            ({"mode": "stream"}, "'prompt' is required"),
            ({"prompt": "x", "mode": "fast"}, "'mode' must be one of"),
            ({"prompt": "x", "format": "ogg"}, "'format' must be one of"),
            ({"prompt": "x", "temperature": 1}, "unknown field"),
            ({"prompt": "x", "speed": 3}, "'speed' must be a number from 0.5 to 2.0"),
            ({"prompt": "x", "speed": "fast"}, "'speed' must be a number"),
            ({"prompt": "x", "speed": 10**400}, "'speed' must be a number"),
        ]
        for payload, needle in cases:
            r = await invoke_http(base, payload)
            assert r.order == ["error"]
            assert r.errors[0]["code"] == "bad_request" and needle in r.errors[0]["message"]
        async with connect(base.replace("http", "ws") + "/ws") as ws:
            await ws.send("not json")
            event = json.loads(await ws.recv())
            assert event["type"] == "error" and event["code"] == "bad_request"
            await ws.send(json.dumps({"prompt": ""}))
            assert json.loads(await ws.recv())["code"] == "bad_request"
        async with httpx.AsyncClient() as client:
            broken = await client.post(base + "/invocations", content=b"{broken")
            assert broken.status_code == 400
    assert tts.sessions == []  # nothing invalid reached the TTS


async def _ping_until(client: httpx.AsyncClient, base: str, status: str) -> dict:
    async with asyncio.timeout(5):
        while (body := (await client.get(base + "/ping")).json())["status"] != status:
            await asyncio.sleep(0.02)
    return body


async def test_ping_is_healthy_busy_while_streaming() -> None:
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url, 20, LONG)) as base,
        httpx.AsyncClient() as client,
    ):
        idle = (await client.get(base + "/ping")).json()
        assert idle["status"] == "Healthy" and isinstance(idle["time_of_last_update"], int)
        run = asyncio.create_task(invoke_http(base, {"prompt": "hi"}))
        busy = await _ping_until(client, base, "HealthyBusy")
        assert not run.done()
        run.cancel()  # the caller leaves; the invocation ends and the runtime is idle again
        await asyncio.gather(run, return_exceptions=True)
        after = await _ping_until(client, base, "Healthy")
    assert busy["time_of_last_update"] >= idle["time_of_last_update"]
    assert after["time_of_last_update"] >= busy["time_of_last_update"]


async def test_ws_cancel_message_stops_the_run_and_the_connection_goes_on() -> None:
    async with (
        FakeTtsServer(synth_delay_s=0.05) as tts,
        serve(make_app(tts.url, 100, LONG)) as base,
        connect(base.replace("http", "ws") + "/ws") as ws,
    ):
        await ws.send(json.dumps({"prompt": "hi"}).encode())  # binary JSON is accepted too
        await ws.send(json.dumps({"prompt": "second while busy"}))
        frames = []
        while True:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                break
            frames.append(json.loads(frame))
        await ws.send(json.dumps({"type": "cancel"}))
        while True:
            frame = await ws.recv()
            if isinstance(frame, str) and json.loads(frame)["type"] == "error":
                event = json.loads(frame)
                if event["code"] == "cancelled":
                    break
        assert event["fatal"] is True
        # The same connection takes the next invocation.
        await ws.send(json.dumps({"prompt": "after cancel"}))
        last = None
        while last is None or last["type"] not in ("done", "error"):
            frame = await ws.recv()
            if isinstance(frame, str):
                last = json.loads(frame)
        assert last["type"] == "done"
    busy = [f for f in frames if f["type"] == "error"]
    assert busy and busy[0]["code"] == "busy" and busy[0]["fatal"] is False
    assert "cancel" in tts.sessions[0].types() and "close" not in tts.sessions[0].types()
    assert tts.sessions[1].types()[-1] == "close"


async def test_speed_goes_to_the_tts_session_only_when_asked() -> None:
    async with FakeTtsServer() as tts, serve(make_app(tts.url)) as base:
        fast = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "x", "speed": 1.5})
        plain = await invoke_http(base, {"prompt": "x"})
    assert fast.ok and plain.ok
    starts = [s.received[0] for s in tts.sessions]
    assert [s["type"] for s in starts] == ["start", "start"]
    assert starts[0]["speed"] == 1.5
    assert "speed" not in starts[1]

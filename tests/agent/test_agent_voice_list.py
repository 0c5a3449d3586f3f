"""`{"list": "voices"}`: the agent answers with the real TTS server's voice list (JSON on
POST /invocations, one `voices` event on /ws), its own default voice as `default` when it has
one; a TTS it cannot reach is `tts_unavailable`, a paused voice `voice_paused`.

And a voice per turn: two turns of one /ws conversation, each with its own voice, are each
spoken in that voice (the agent opens one TTS session per turn, with that turn's `voice`)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.loopback import serve
from devkit.processes import free_port
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

ANSWER = "Thank you for calling."
BLEND = "jf_alpha:0.4+jf_gongitsune:0.3+jf_nezumi:0.2+jf_tebukuro:0.1"


def agent(tts_url: str, **settings: Any) -> Any:
    return create_app(
        AgentSettings(**settings), ReplayedAnswerSource(ANSWER, 400), WebSocketTts(tts_url)
    )


@pytest.mark.model
async def test_post_answers_the_servers_voice_list_as_json(server: ThreadedServer) -> None:
    async with serve(agent(server.ws)) as base, httpx.AsyncClient(timeout=60) as client:
        answer = await client.post(f"{base}/invocations", json={"list": "voices"})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {"type": "voices", **server.voices()}
    assert "jf_alpha" in [v["name"] for v in answer.json()["voices"]]


@pytest.mark.model
async def test_ws_answers_one_voices_event_with_the_agents_default(
    server: ThreadedServer,
) -> None:
    expected = {**server.voices(), "default": "jf_nezumi"}
    async with (
        serve(agent(server.ws, default_voice="jf_nezumi")) as base,
        connect(base.replace("http", "ws") + "/ws") as ws,
    ):
        await ws.send(json.dumps({"list": "voices"}))
        event = json.loads(await ws.recv())
        await ws.send(json.dumps({"list": "everything"}))
        refused = json.loads(await ws.recv())
    assert event == {"type": "voices", **expected}
    assert (refused["type"], refused["code"]) == ("error", "bad_request")
    assert "'list' must be 'voices'" in refused["message"]


async def test_an_unreachable_tts_is_tts_unavailable_and_a_paused_voice_says_so() -> None:
    nowhere = f"ws://127.0.0.1:{free_port()}/invocations-bidirectional-stream"
    async with httpx.AsyncClient(timeout=60) as client:
        async with serve(agent(nowhere)) as base:
            down = await client.post(f"{base}/invocations", json={"list": "voices"})
        async with serve(agent(nowhere, voice_paused=True)) as base:
            paused = await client.post(f"{base}/invocations", json={"list": "voices"})
            bad = await client.post(f"{base}/invocations", json={"list": 3})
    assert down.status_code == 503 and down.json()["code"] == "tts_unavailable"
    assert "127.0.0.1" not in down.json()["message"]  # the caller never learns the address
    assert paused.status_code == 503 and paused.json()["code"] == "voice_paused"
    assert bad.status_code == 400 and bad.json()["code"] == "bad_request"


async def ws_turn(ws: Any, voice: str) -> tuple[bytes, dict[str, Any]]:
    """One turn on an open /ws: its audio, and its last event."""
    await ws.send(json.dumps({"prompt": "hi", "voice": voice}))
    audio = bytearray()
    while True:
        frame = await ws.recv()
        if isinstance(frame, bytes):
            audio += frame
            continue
        event = json.loads(frame)
        if event["type"] in ("done", "error"):
            return bytes(audio), event


@pytest.mark.model
async def test_each_ws_turn_is_spoken_in_its_own_voice(server: ThreadedServer) -> None:
    async with serve(agent(server.ws)) as base:
        async with connect(base.replace("http", "ws") + "/ws", max_size=None) as ws:
            blended, first = await ws_turn(ws, BLEND)
            plain, second = await ws_turn(ws, "jf_alpha")
            again, third = await ws_turn(ws, BLEND)
        async with connect(base.replace("http", "ws") + "/ws", max_size=None) as ws:
            alone, fourth = await ws_turn(ws, "jf_alpha")  # a fresh conversation, same voice
    assert [e["type"] for e in (first, second, third, fourth)] == ["done"] * 4
    assert blended and plain and blended != plain  # the second turn did not keep the blend
    assert again == blended  # and the third went back to it
    assert alone == plain  # the plain voice is the same voice in any conversation

"""A voice blend passes through the agent to the real Kokoro server and is heard; a malformed
blend ends the answer with the server's reason (`tts_bad_parameter`), never another voice.

The real Kokoro-82M model behind the real container app (fixtures from tests/conftest.py),
the agent on uvicorn with the ReplayedAnswerSource (a double for the LLM)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest

from devkit.loopback import serve
from devkit.sse import SSEParser
from tests.support.servers import make_agent
from tests.support.user_voice import SAVED_BLEND, USER_VOICE
from voice_agent.payload import MAX_VOICE_CHARS

# Four voices of the test weights with their weights: 68 characters, longer than a name.
BLEND = "jf_alpha:0.400+jf_gongitsune:0.300+jf_nezumi:0.200+jf_tebukuro:0.100"
ANSWER = "Thank you for calling."


async def _answer(base: str, voice: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    payload = {"prompt": "hi", "voice": voice}
    async with (
        httpx.AsyncClient(timeout=120) as client,
        client.stream("POST", base + "/invocations", json=payload) as response,
    ):
        parser = SSEParser()
        async with asyncio.timeout(120):
            async for chunk in response.aiter_bytes():
                events += [json.loads(data) for data in parser.feed(chunk)]
    return events


def _audio(events: list[dict[str, Any]]) -> bytes:
    return b"".join(base64.b64decode(e["data"]) for e in events if e["type"] == "audio")


@pytest.mark.model
async def test_a_blend_is_heard_through_the_agent_and_a_bad_one_is_refused(make_server) -> None:
    srv = make_server()
    async with serve(make_agent(srv.ws, answer=ANSWER, rate=400)) as base:
        blended = await _answer(base, BLEND)
        single = await _answer(base, "jf_alpha")
        refused = await _answer(base, "jf_alpha:2+")
    assert len(BLEND) <= MAX_VOICE_CHARS
    assert blended[-1]["type"] == "done" and single[-1]["type"] == "done"
    assert _audio(blended) and _audio(blended) != _audio(single)
    last = refused[-1]
    assert last["type"] == "error" and last["code"] == "tts_bad_parameter"
    assert "empty part" in last["message"]
    assert not _audio(refused)


@pytest.mark.model
async def test_a_user_voice_file_is_heard_through_the_agent(user_voice_server) -> None:
    tts = user_voice_server.ws
    async with serve(make_agent(tts, answer=ANSWER, rate=400)) as base:
        saved = await _answer(base, USER_VOICE)
        spelled = await _answer(base, SAVED_BLEND)
        single = await _answer(base, "jf_alpha")
    assert saved[-1]["type"] == "done", saved[-1]
    # The file holds that mix: the same audio as the blend spelled out, not its first voice.
    assert _audio(saved) == _audio(spelled)
    assert _audio(saved) != _audio(single)

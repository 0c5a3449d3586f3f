"""`devkit.caller --list-voices` through the real agent app, over POST /invocations and over
/ws: the agent's TTS list printed one voice a line (language, user files marked), its
default voice, the blend syntax; a TTS the agent cannot reach is one error line."""

from __future__ import annotations

import asyncio

import pytest
from kokoro_stream.voices import VoiceInfo, VoiceList
from kokoro_stream.websocket import WebSocketTts

from devkit import caller
from devkit.loopback import serve
from devkit.processes import free_port
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

LISTED = VoiceList(
    voices=(
        VoiceInfo("af_heart", "en-us", "female", False),
        VoiceInfo("af_mine", "en-us", "female", True),
        VoiceInfo("jm_kumo", "ja", "male", False),
    ),
    default="af_heart",
    max_blend=4,
    blend_syntax="name:weight+name:weight",
)


class ListingTts(WebSocketTts):
    """The agent's transport with the list a TTS server would answer (no server needed)."""

    async def list_voices(self) -> VoiceList:
        return LISTED


@pytest.mark.parametrize("transport", [[], ["--ws"]])
async def test_list_voices_prints_the_agents_list(
    transport: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = AgentSettings(default_voice="jm_kumo")
    tts = ListingTts("ws://127.0.0.1:9/unused")
    app = create_app(settings, ReplayedAnswerSource("unused", 100), tts)
    async with serve(app) as base:
        code = await asyncio.to_thread(caller.main, ["--url", base, "--list-voices", *transport])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split()[:2] for line in lines[:3]] == [
        ["af_heart", "en-us"],
        ["af_mine", "en-us"],
        ["jm_kumo", "ja"],
    ]
    assert [line.endswith("user file") for line in lines[:3]] == [False, True, False]
    assert lines[3] == "3 voices, default jm_kumo"  # the agent's own default voice
    assert "name:weight+name:weight" in lines[4]


async def test_a_tts_the_agent_cannot_reach_is_one_error_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    closed = f"ws://127.0.0.1:{free_port()}/invocations-bidirectional-stream"  # nobody listens
    app = create_app(AgentSettings(), ReplayedAnswerSource("unused", 100), WebSocketTts(closed))
    async with serve(app) as base:
        code = await asyncio.to_thread(caller.main, ["--url", base, "--list-voices"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    # The agent runs in this process: its own log lines come first on stderr.
    said = captured.err.splitlines()[-1]
    assert said.startswith("error: the agent did not list its voices: tts_unavailable")
    assert "Connection refused" in said

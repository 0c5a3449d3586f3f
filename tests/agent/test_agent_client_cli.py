"""The caller CLI end to end against the agent app (FakeTtsServer behind it): single runs
over SSE and /ws saved as WAV, and the stream vs batch comparison table."""

from __future__ import annotations

import asyncio
import wave
from pathlib import Path

import pytest

from tests.agent.fake_tts import FakeTtsServer
from tests.agent.loopback import serve_app
from voice_agent import client
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.tts.websocket import WebSocketTts

ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"


@pytest.mark.parametrize("transport", [[], ["--ws"]])
async def test_single_run_saves_a_wav_and_prints_metrics(
    transport: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answer.wav"
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 300), WebSocketTts(tts.url))
        async with serve_app(app) as base:
            argv = ["--url", base, "--out", str(out), *transport]
            code = await asyncio.to_thread(client.main, argv)
    assert code == 0
    printed = capsys.readouterr().out
    assert "text_source=ReplayedAnswerSource" in printed and "first audio" in printed
    with wave.open(str(out)) as wav:
        assert wav.getframerate() == 24000 and wav.getsampwidth() == 2
        assert wav.getnframes() * 2 == tts.sessions[0].audio_bytes


async def test_compare_prints_a_table_for_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 100), WebSocketTts(tts.url))
        async with serve_app(app) as base:
            code = await asyncio.to_thread(client.main, ["--url", base, "--compare", "--runs", "2"])
    assert code == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert any(line.startswith("stream") and " 2 " in line for line in lines)
    assert any(line.startswith("batch") and " 2 " in line for line in lines)
    assert "first audio: stream is" in printed
    assert len(tts.sessions) == 4


def test_cli_rejects_bad_arguments() -> None:
    with pytest.raises(SystemExit):
        client.parse_args(["--runs", "0"])
    with pytest.raises(SystemExit):
        client.parse_args(["--mode", "fast"])

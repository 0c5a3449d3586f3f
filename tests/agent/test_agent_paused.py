"""Voice paused (TTS_PAUSED=true, set by the stack with -c voice_paused=true): every turn gets
one clear `voice_paused` error, and neither the model nor the TTS is called."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.agent_client import invoke_http, invoke_ws
from devkit.loopback import serve
from tests.support.fake_tts import FakeTtsServer
from voice_agent.app import create_app
from voice_agent.conversation import NO_HISTORY, History
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import VOICE_PAUSED_MESSAGE, AgentSettings


class CountingSource(ReplayedAnswerSource):
    """The replayed answer, counting how often the agent asked for one."""

    calls = 0

    def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]:
        CountingSource.calls += 1
        return super().stream(prompt, history)


def test_settings_read_the_flag() -> None:
    assert (
        AgentSettings.from_env({"TTS_URL": "ws://x", "AGENT_TEXT_SOURCE": "replay"}).voice_paused
        is False
    )
    env = {"TTS_URL": "ws://x", "AGENT_TEXT_SOURCE": "replay", "TTS_PAUSED": "true"}
    assert AgentSettings.from_env(env).voice_paused is True
    with pytest.raises(ValueError, match="TTS_PAUSED must be true or false"):
        AgentSettings.from_env({**env, "TTS_PAUSED": "sometimes"})


@pytest.mark.parametrize("paused", [True, False])
async def test_paused_voice_answers_one_clear_error_on_both_routes(paused: bool) -> None:
    CountingSource.calls = 0
    source = CountingSource("Hello there. This is the answer.", tokens_per_s=500)
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(voice_paused=paused), source, WebSocketTts(tts.url))
        async with serve(app) as base:
            sse = await invoke_http(base, {"prompt": "hi"})
            ws = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "hi"})
    if not paused:  # the same app answers normally when the voice runs
        assert sse.ok and ws.ok and CountingSource.calls == 2 and len(tts.sessions) == 2
        return
    for result in (sse, ws):
        assert result.order == ["error"]
        (error,) = result.errors
        assert error["code"] == "voice_paused" and error["fatal"] is True
        assert error["message"] == VOICE_PAUSED_MESSAGE
        assert "voice_paused" in error["message"] and "resume" in error["message"].lower()
    assert CountingSource.calls == 0  # no tokens billed
    assert tts.sessions == []

"""A voice blend through the LiveKit plugin's stream, on the real Kokoro server (real model,
CPU): LiveKit's emitter yields exactly what the server says for the blend, which is not its
first voice alone; a malformed blend is a recoverable TTSError with the server's reason.
The checks both frameworks share are tests/support/voice_blends.py's."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import APIConnectOptions, APIError
from livekit.agents.tts import TTSError
from livekit.plugins import kokoro_sagemaker

from tests.support import voice_blends
from tests.support.pipecat_session_tap import SessionTap

pytestmark = pytest.mark.model

NO_RETRY = APIConnectOptions(max_retry=0, timeout=30.0)


async def streamed(tap: SessionTap, voice: str) -> tuple[bytes, list[TTSError]]:
    """TEXT through a stream of a TTS that speaks with `voice`, as an agent pushes it."""
    tts = kokoro_sagemaker.TTS(transport=tap, voice=voice)
    errors: list[TTSError] = []
    tts.on("error", errors.append)
    stream = tts.stream(conn_options=NO_RETRY)
    stream.push_text(voice_blends.TEXT)
    stream.end_input()
    audio = b"".join([bytes(e.frame.data) async for e in stream])
    await tts.aclose()
    return audio, errors


@pytest.mark.replayable
async def test_a_blend_is_heard_as_the_server_speaks_it(server: Any) -> None:
    await voice_blends.check_blend_is_heard_as_the_server_speaks_it(server, streamed)


async def test_a_malformed_blend_is_an_error_with_the_servers_reason(server: Any) -> None:
    refused, errors = await voice_blends.refused_blend(server, streamed)
    [error] = errors
    assert error.recoverable and isinstance(error.error, APIError)
    assert "bad_parameter" in str(error.error) and refused.message in str(error.error)
    assert error.error.body == refused.raw


async def test_a_user_voice_file_is_heard_through_the_plugin(user_voice_server: Any) -> None:
    await voice_blends.check_user_voice_file_is_heard(user_voice_server, streamed)

"""A voice blend through the LiveKit plugin's stream, on the real Kokoro server (real model,
CPU): LiveKit's emitter yields exactly what the server says for the blend, which is not its
first voice alone; a malformed blend is a recoverable TTSError with the server's reason."""

from __future__ import annotations

from typing import Any

import pytest
from kokoro_stream import ServerError, SessionOptions
from kokoro_stream.websocket import WebSocketTts
from livekit.agents import APIConnectOptions, APIError
from livekit.agents.tts import TTSError
from livekit.plugins import kokoro_sagemaker

from tests.support.pipecat_session_tap import SessionTap, server_audio
from tests.support.user_voice import SAVED_BLEND, USER_VOICE

pytestmark = pytest.mark.model

BLEND = "jf_alpha:2+jf_nezumi:1"  # two voices of the local weights, weights 2 and 1
TEXT = "Hello there."
NO_RETRY = APIConnectOptions(max_retry=0, timeout=30.0)


async def streamed(server: Any, voice: str) -> tuple[bytes, list[TTSError], SessionTap]:
    """TEXT through a stream of a TTS that speaks with `voice`, as an agent pushes it."""
    tap = SessionTap(WebSocketTts(server.ws))
    tts = kokoro_sagemaker.TTS(transport=tap, voice=voice)
    errors: list[TTSError] = []
    tts.on("error", errors.append)
    stream = tts.stream(conn_options=NO_RETRY)
    stream.push_text(TEXT)
    stream.end_input()
    audio = b"".join([bytes(e.frame.data) async for e in stream])
    await tts.aclose()
    return audio, errors, tap


@pytest.mark.replayable
async def test_a_blend_is_heard_as_the_server_speaks_it(server: Any) -> None:
    blended, errors, tap = await streamed(server, BLEND)
    alone, _, _ = await streamed(server, "jf_alpha")
    # What the server says for the blend in a session of its own, with the same options.
    options = SessionOptions(voice=BLEND, word_timestamps=True)
    assert tap.sent[0] == options.start_message()
    said = await server_audio(WebSocketTts(server.ws), options, TEXT)

    assert errors == [] and tap.events(ServerError) == []
    assert blended == tap.audio() == said and len(said) > 0
    assert alone and alone != blended


async def test_a_malformed_blend_is_an_error_with_the_servers_reason(server: Any) -> None:
    _, errors, tap = await streamed(server, "jf_alpha:2+")
    [refused] = tap.events(ServerError)
    assert (refused.code, refused.fatal) == ("bad_parameter", False)
    assert "empty part" in refused.message
    [error] = errors
    assert error.recoverable and isinstance(error.error, APIError)
    assert "bad_parameter" in str(error.error) and refused.message in str(error.error)
    assert error.error.body == refused.raw


async def test_a_user_voice_file_is_heard_through_the_plugin(user_voice_server: Any) -> None:
    saved, errors, _ = await streamed(user_voice_server, USER_VOICE)
    spelled, _, _ = await streamed(user_voice_server, SAVED_BLEND)
    alone, _, _ = await streamed(user_voice_server, "jf_alpha")
    assert errors == []
    # The file holds that mix: the emitter yields the blend's audio, not its first voice's.
    assert saved and saved == spelled
    assert saved != alone

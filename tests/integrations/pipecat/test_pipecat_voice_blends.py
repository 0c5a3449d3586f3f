"""A voice blend through the Pipecat service, on the real Kokoro server (real model, CPU): the
pipeline plays exactly what the server says for the blend, which is not its first voice alone;
a malformed blend reaches the pipeline as a KokoroErrorFrame with the server's reason."""

from __future__ import annotations

import pytest
from kokoro_stream import ServerError, SessionOptions
from kokoro_stream.websocket import WebSocketTts
from pipecat.utils.errors import ErrorCategory

from pipecat_kokoro import KokoroErrorFrame, KokoroStreamTTSService
from tests.support.pipecat_pipeline import BotPipeline, audio_pcm
from tests.support.pipecat_session_tap import SessionTap, server_audio
from tests.support.user_voice import SAVED_BLEND, USER_VOICE

pytestmark = pytest.mark.model

BLEND = "jf_alpha:2+jf_nezumi:1"  # two voices of the local weights, weights 2 and 1
TEXT = "Hello there."


async def spoken(server, voice: str) -> tuple[bytes, list[KokoroErrorFrame], SessionTap]:
    """One turn of TEXT through a pipeline whose service speaks with `voice`."""
    tap = SessionTap(WebSocketTts(server.ws))
    tts = KokoroStreamTTSService(transport=tap, voice=voice)
    async with BotPipeline(tts) as bot:
        mark = await bot.speak(TEXT)
        audio = audio_pcm(bot.down.frames[mark:])
        errors = [f for f in bot.up.frames if isinstance(f, KokoroErrorFrame)]
    return audio, errors, tap


@pytest.mark.replayable
async def test_a_blend_is_heard_as_the_server_speaks_it(server) -> None:
    blended, errors, tap = await spoken(server, BLEND)
    alone, _, _ = await spoken(server, "jf_alpha")
    # What the server says for the blend in a session of its own, with the same options.
    [start] = [m for m in tap.sent if m["type"] == "start"]
    assert start["voice"] == BLEND
    options = SessionOptions(voice=BLEND, word_timestamps=True)
    assert options.start_message() == start
    said = await server_audio(WebSocketTts(server.ws), options, TEXT)

    assert errors == [] and tap.events(ServerError) == []
    assert blended == tap.audio() == said and len(said) > 0
    assert alone and alone != blended


async def test_a_malformed_blend_is_an_error_frame_with_the_servers_reason(server) -> None:
    _, errors, tap = await spoken(server, "jf_alpha:2+")
    [refused] = tap.events(ServerError)
    assert (refused.code, refused.fatal) == ("bad_parameter", False)
    assert "empty part" in refused.message
    [frame] = [f for f in errors if f.code == "bad_parameter"]
    assert refused.message in frame.error and frame.category == ErrorCategory.APPLICATION
    assert not frame.server_fatal


async def test_a_user_voice_file_is_heard_through_the_service(user_voice_server) -> None:
    saved, errors, _ = await spoken(user_voice_server, USER_VOICE)
    spelled, _, _ = await spoken(user_voice_server, SAVED_BLEND)
    alone, _, _ = await spoken(user_voice_server, "jf_alpha")
    assert errors == []
    # The file holds that mix: the pipeline plays the blend's audio, not its first voice's.
    assert saved and saved == spelled
    assert saved != alone

"""A voice blend through the Pipecat service, on the real Kokoro server (real model, CPU): the
pipeline plays exactly what the server says for the blend, which is not its first voice alone;
a malformed blend reaches the pipeline as a KokoroErrorFrame with the server's reason.
The checks both frameworks share are tests/support/voice_blends.py's."""

from __future__ import annotations

import pytest
from pipecat.utils.errors import ErrorCategory

from pipecat_kokoro import KokoroErrorFrame, KokoroStreamTTSService
from tests.support import voice_blends
from tests.support.pipecat_pipeline import BotPipeline, audio_pcm
from tests.support.pipecat_session_tap import SessionTap

pytestmark = pytest.mark.model


async def spoken(tap: SessionTap, voice: str) -> tuple[bytes, list[KokoroErrorFrame]]:
    """One turn of TEXT through a pipeline whose service speaks with `voice`."""
    tts = KokoroStreamTTSService(transport=tap, voice=voice)
    async with BotPipeline(tts) as bot:
        mark = await bot.speak(voice_blends.TEXT)
        audio = audio_pcm(bot.down.frames[mark:])
        errors = [f for f in bot.up.frames if isinstance(f, KokoroErrorFrame)]
    return audio, errors


@pytest.mark.replayable
async def test_a_blend_is_heard_as_the_server_speaks_it(server) -> None:
    await voice_blends.check_blend_is_heard_as_the_server_speaks_it(server, spoken)


async def test_a_malformed_blend_is_an_error_frame_with_the_servers_reason(server) -> None:
    refused, errors = await voice_blends.refused_blend(server, spoken)
    [frame] = [f for f in errors if f.code == "bad_parameter"]
    assert refused.message in frame.error and frame.category == ErrorCategory.APPLICATION
    assert not frame.server_fatal


async def test_a_user_voice_file_is_heard_through_the_service(user_voice_server) -> None:
    await voice_blends.check_user_voice_file_is_heard(user_voice_server, spoken)

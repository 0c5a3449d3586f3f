"""The voice-blend checks the Pipecat and the LiveKit tests share, on the real Kokoro server.

Each framework's test module passes how its layer speaks TEXT with a voice over a tapped
transport (a `Speak`) and keeps what only its framework decides: how a refused blend reaches
the pipeline or the agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from kokoro_stream import ServerError, SessionOptions
from kokoro_stream.websocket import WebSocketTts

from tests.support.pipecat_session_tap import SessionTap, server_audio
from tests.support.user_voice import SAVED_BLEND, USER_VOICE

BLEND = "jf_alpha:2+jf_nezumi:1"  # two voices of the local weights, weights 2 and 1
TEXT = "Hello there."
# What the layer's session must start with, and what the server's own audio is asked with.
BLEND_OPTIONS = SessionOptions(voice=BLEND, word_timestamps=True)

# (the tap to speak over, voice) -> the audio the layer gave, the errors it reported.
Speak = Callable[[SessionTap, str], Awaitable[tuple[bytes, Sequence[Any]]]]


async def tapped(server: Any, speak: Speak, voice: str) -> tuple[bytes, Sequence[Any], SessionTap]:
    """What the layer gave for TEXT with `voice`, and the tap on its sessions with the server."""
    tap = SessionTap(WebSocketTts(server.ws))
    audio, errors = await speak(tap, voice)
    return audio, errors, tap


async def check_blend_is_heard_as_the_server_speaks_it(server: Any, speak: Speak) -> None:
    """The layer's audio for BLEND is exactly what the server says for it in a session of its
    own with the same options, and not its first voice alone."""
    blended, errors, tap = await tapped(server, speak, BLEND)
    alone, _, _ = await tapped(server, speak, "jf_alpha")
    [start] = [m for m in tap.sent if m["type"] == "start"]
    assert start["voice"] == BLEND
    assert tap.sent[0] == start == BLEND_OPTIONS.start_message()
    said = await server_audio(WebSocketTts(server.ws), BLEND_OPTIONS, TEXT)

    assert errors == [] and tap.events(ServerError) == []
    assert blended == tap.audio() == said and len(said) > 0
    assert alone and alone != blended


async def refused_blend(server: Any, speak: Speak) -> tuple[ServerError, Sequence[Any]]:
    """A malformed blend: the server refuses it as a recoverable bad_parameter naming the
    empty part. Returns the refusal and what the layer reported, for the framework's checks."""
    _, errors, tap = await tapped(server, speak, "jf_alpha:2+")
    [refused] = tap.events(ServerError)
    assert (refused.code, refused.fatal) == ("bad_parameter", False)
    assert "empty part" in refused.message
    return refused, errors


async def check_user_voice_file_is_heard(server: Any, speak: Speak) -> None:
    """A deployment's voice file (tests/support/user_voice.py) is spoken as the mix it holds."""
    saved, errors, _ = await tapped(server, speak, USER_VOICE)
    spelled, _, _ = await tapped(server, speak, SAVED_BLEND)
    alone, _, _ = await tapped(server, speak, "jf_alpha")
    assert errors == []
    # The file holds that mix: the layer gives the blend's audio, not its first voice's.
    assert saved and saved == spelled
    assert saved != alone

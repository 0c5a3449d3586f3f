"""The voices a caller can name: the TTS server's list, with the agent's default voice.

Asked with the payload `{"list": "voices"}`: on POST /invocations it is answered with JSON
(not SSE), on /ws with one `voices` event. The list comes from the TTS each time (its own
voices and a deployment's user voices can change with a redeploy); `default` is the voice an
invocation without `voice` gets: the agent's default voice when it has one, else the
server's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from kokoro_stream.base import TtsTransport

from .caller_errors import tts_failure_message
from .events import EventType, error_event
from .settings import VOICE_PAUSED_MESSAGE


async def voices_event(
    tts: TtsTransport, default_voice: str | None, paused: bool, timeout_s: float
) -> dict[str, Any]:
    """The `voices` event, or the `error` event (`voice_paused`, `tts_unavailable`)."""
    if paused:
        return error_event("voice_paused", VOICE_PAUSED_MESSAGE)
    try:
        voices = await asyncio.wait_for(tts.list_voices(), timeout_s)
    except Exception as exc:
        return error_event("tts_unavailable", tts_failure_message("cannot list the voices", exc))
    listed = voices.as_dict()
    if default_voice:
        listed["default"] = default_voice
    return {"type": EventType.VOICES, **listed}

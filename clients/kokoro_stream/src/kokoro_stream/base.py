"""The small TTS transport interface shared by the WebSocket and SageMaker transports.

A session speaks the bidirectional session protocol v1 (docs/protocol.md): the caller sends
`start`/`text`/`flush`/`cancel`/`close`, and reads the server's messages back as typed events
(events.py). v1.1: a session opened with `word_timestamps=True` also gets a `TtsWords` event
for every sentence, after its `SentenceStart` and before its audio.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any, Protocol, Self

from . import events as tts_events
from .messages import ClientMessageType
from .voices import VoiceList

__all__ = ["FrameDecoder", "ProtocolMessages", "TtsConnectionLost", "TtsSession", "TtsTransport"]


class TtsConnectionLost(ConnectionError):
    """A message could not be sent: the session's transport is closed or failed."""


class TtsSession(Protocol):
    async def send(self, message: dict[str, Any]) -> None:
        """Any client message (the builders in `messages`); raises TtsConnectionLost."""
        ...

    async def send_text(self, text: str) -> None: ...
    async def flush(self) -> None: ...
    async def cancel(self) -> None: ...
    async def close(self) -> None:
        """Protocol `close`: the server flushes, sends remaining audio and `session_end`."""
        ...

    async def aclose(self) -> None:
        """Tear the connection down now (idempotent)."""
        ...

    def events(self) -> AsyncGenerator[tts_events.TtsEvent, None]: ...


class TtsTransport(Protocol):
    name: str

    async def open_session(self, options: tts_events.SessionOptions) -> TtsSession: ...

    async def list_voices(self) -> VoiceList:
        """What the server can speak with (its `GET /voices`)."""
        ...

    async def aclose(self) -> None: ...


class ProtocolMessages:
    """The client half of protocol v1 on top of one `_send(message)` per transport."""

    async def _send(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def send(self, message: dict[str, Any]) -> None:
        await self._send(message)

    async def aclose(self) -> None:
        raise NotImplementedError

    async def start(self, options: tts_events.SessionOptions) -> None:
        await self._send(options.start_message())

    async def started(self, options: tts_events.SessionOptions) -> Self:
        """This session once its `start` went out; closed again if that failed (a transport
        hands out only sessions that are open)."""
        try:
            await self.start(options)
        except BaseException:
            await self.aclose()
            raise
        return self

    async def update_defaults(self, **options: Any) -> None:
        """A further `start`: the server merges it into the session's defaults (frame_ms...)."""
        await self._send({"type": ClientMessageType.START, **options})

    async def send_text(self, text: str) -> None:
        await self._send({"type": ClientMessageType.TEXT, "text": text})

    async def flush(self) -> None:
        await self._send({"type": ClientMessageType.FLUSH})

    async def cancel(self) -> None:
        await self._send({"type": ClientMessageType.CANCEL})

    async def close(self) -> None:
        await self._send({"type": ClientMessageType.CLOSE})


class FrameDecoder:
    """Turns classified frames into typed events, tagging audio with the current sentence
    index (and checking that `words` belong to the sentence just started)."""

    def __init__(self) -> None:
        self._index: int | None = None

    def text(self, frame: str) -> tts_events.ControlEvent:
        """A text frame: it must be one JSON object (a control message)."""
        try:
            message = json.loads(frame)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            raise tts_events.TtsProtocolError(f"text frame is not a JSON object: {frame[:80]!r}")
        return self.control(message)

    def control(self, message: dict[str, Any]) -> tts_events.ControlEvent:
        event = tts_events.control_event(message)
        if isinstance(event, tts_events.SentenceStart):
            self._index = event.index
        elif isinstance(event, tts_events.TtsWords) and event.index != self._index:
            raise tts_events.TtsProtocolError(
                f"words for sentence {event.index!r} after {self._index!r}"
            )
        return event

    def audio(self, data: bytes) -> tts_events.TtsAudio:
        if self._index is None:
            raise tts_events.TtsProtocolError("audio frame before any sentence_start")
        return tts_events.TtsAudio(self._index, data)

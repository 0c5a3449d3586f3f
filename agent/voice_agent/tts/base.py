"""The small TTS transport interface shared by the WebSocket and SageMaker transports.

A session speaks the bidirectional session protocol v1 (docs/agent.md): the agent sends
`start`/`text`/`flush`/`cancel`/`close`, and reads control messages and audio back as events.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Protocol

from .messages import ClientMessageType, ServerMessageType


@dataclass(frozen=True)
class TtsControl:
    """A JSON control message from the TTS server (sentence_start, synthesis_complete, ...)."""

    message: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.message.get("type", ""))


@dataclass(frozen=True)
class TtsAudio:
    """Raw audio bytes belonging to sentence `index` (from the preceding sentence_start)."""

    index: int
    data: bytes


@dataclass(frozen=True)
class TtsFailure:
    """The transport itself failed (connection lost, stream error); the session is over."""

    code: str
    message: str


TtsEvent = TtsControl | TtsAudio | TtsFailure


class TtsProtocolError(Exception):
    """The server broke the session protocol (e.g. audio before any sentence_start)."""


class TtsSession(Protocol):
    async def send_text(self, text: str) -> None: ...
    async def flush(self) -> None: ...
    async def cancel(self) -> None: ...
    async def close(self) -> None:
        """Protocol `close`: the server flushes, sends remaining audio and `session_end`."""
        ...

    async def aclose(self) -> None:
        """Tear the connection down now (idempotent)."""
        ...

    def events(self) -> AsyncGenerator[TtsEvent, None]: ...


class TtsTransport(Protocol):
    name: str

    async def open_session(
        self, voice: str | None, audio_format: str, sample_rate: int
    ) -> TtsSession: ...

    async def aclose(self) -> None: ...


def start_message(voice: str | None, audio_format: str, sample_rate: int) -> dict[str, Any]:
    """The `start` message carrying session defaults; an unset voice uses the server default."""
    msg: dict[str, Any] = {
        "type": ClientMessageType.START,
        "format": audio_format,
        "sample_rate": sample_rate,
    }
    if voice:
        msg["voice"] = voice
    return msg


class ProtocolMessages:
    """The client half of protocol v1 on top of one `_send(message)` per transport."""

    async def _send(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def start(self, voice: str | None, audio_format: str, sample_rate: int) -> None:
        await self._send(start_message(voice, audio_format, sample_rate))

    async def send_text(self, text: str) -> None:
        await self._send({"type": ClientMessageType.TEXT, "text": text})

    async def flush(self) -> None:
        await self._send({"type": ClientMessageType.FLUSH})

    async def cancel(self) -> None:
        await self._send({"type": ClientMessageType.CANCEL})

    async def close(self) -> None:
        await self._send({"type": ClientMessageType.CLOSE})


class FrameDecoder:
    """Turns classified frames into events, tagging audio with the current sentence index."""

    def __init__(self) -> None:
        self._index: int | None = None

    def text(self, frame: str) -> TtsControl:
        """A text frame: it must be one JSON object (a control message)."""
        try:
            message = json.loads(frame)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            raise TtsProtocolError(f"text frame is not a JSON object: {frame[:80]!r}")
        return self.control(message)

    def control(self, message: dict[str, Any]) -> TtsControl:
        if message.get("type") == ServerMessageType.SENTENCE_START:
            index = message.get("index")
            if not isinstance(index, int):
                raise TtsProtocolError(f"sentence_start without an integer index: {message!r}")
            self._index = index
        return TtsControl(message)

    def audio(self, data: bytes) -> TtsAudio:
        if self._index is None:
            raise TtsProtocolError("audio frame before any sentence_start")
        return TtsAudio(self._index, data)

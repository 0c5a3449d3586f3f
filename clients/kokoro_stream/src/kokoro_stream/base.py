"""The small TTS transport interface shared by the WebSocket and SageMaker transports.

A session speaks the bidirectional session protocol v1 (docs/agent.md): the agent sends
`start`/`text`/`flush`/`cancel`/`close`, and reads control messages and audio back as events.
v1.1: a session opened with `word_timestamps=True` also gets a `TtsWords` event for every
sentence, after its `sentence_start` and before its audio.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from .messages import ClientMessageType, ServerMessageType


@dataclass(frozen=True)
class TtsControl:
    """A JSON control message from the TTS server (sentence_start, synthesis_complete, ...)."""

    message: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.message.get("type", ""))

    def get(self, key: str, default: Any = None) -> Any:
        return self.message.get(key, default)


@dataclass(frozen=True)
class TtsAudio:
    """Raw audio bytes belonging to sentence `index` (from the preceding sentence_start)."""

    index: int
    data: bytes


@dataclass(frozen=True)
class TtsWord:
    text: str
    start_ms: int  # from the first sample of the sentence's audio
    end_ms: int


@dataclass(frozen=True)
class TtsWords:
    """When each written word of sentence `index` is spoken (protocol v1.1 `words`)."""

    index: int
    words: tuple[TtsWord, ...]
    type = "words"  # like TtsControl.type, so readers can check for session_end alike


@dataclass(frozen=True)
class TtsFailure:
    """The transport itself failed (connection lost, stream error); the session is over."""

    code: str
    message: str


TtsEvent = TtsControl | TtsWords | TtsAudio | TtsFailure


class TtsProtocolError(Exception):
    """The server broke the session protocol (e.g. audio before any sentence_start)."""


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

    def events(self) -> AsyncGenerator[TtsEvent, None]: ...


class TtsTransport(Protocol):
    name: str

    async def open_session(
        self,
        voice: str | None,
        audio_format: str,
        sample_rate: int,
        word_timestamps: bool = False,
        speed: float | None = None,
    ) -> TtsSession: ...

    async def aclose(self) -> None: ...


def start_message(
    voice: str | None,
    audio_format: str,
    sample_rate: int,
    word_timestamps: bool = False,
    speed: float | None = None,
) -> dict[str, Any]:
    """The `start` message carrying session defaults; an unset voice uses the server default."""
    msg: dict[str, Any] = {
        "type": ClientMessageType.START,
        "format": audio_format,
        "sample_rate": sample_rate,
    }
    if voice:
        msg["voice"] = voice
    if word_timestamps:  # only then: a v1 server never sees the field
        msg["word_timestamps"] = True
    if speed is not None:  # unset: the server's default (1.0)
        msg["speed"] = speed
    return msg


class ProtocolMessages:
    """The client half of protocol v1 on top of one `_send(message)` per transport."""

    async def _send(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def send(self, message: dict[str, Any]) -> None:
        await self._send(message)

    async def start(
        self,
        voice: str | None,
        audio_format: str,
        sample_rate: int,
        word_timestamps: bool = False,
        speed: float | None = None,
    ) -> None:
        await self._send(start_message(voice, audio_format, sample_rate, word_timestamps, speed))

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
    """Turns classified frames into events, tagging audio with the current sentence index."""

    def __init__(self) -> None:
        self._index: int | None = None

    def text(self, frame: str) -> TtsControl | TtsWords:
        """A text frame: it must be one JSON object (a control message)."""
        try:
            message = json.loads(frame)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            raise TtsProtocolError(f"text frame is not a JSON object: {frame[:80]!r}")
        return self.control(message)

    def control(self, message: dict[str, Any]) -> TtsControl | TtsWords:
        if message.get("type") == ServerMessageType.SENTENCE_START:
            index = message.get("index")
            if not isinstance(index, int):
                raise TtsProtocolError(f"sentence_start without an integer index: {message!r}")
            self._index = index
        if message.get("type") == ServerMessageType.WORDS:
            return self._words(message)
        return TtsControl(message)

    def _words(self, message: dict[str, Any]) -> TtsWords:
        """A `words` message belongs to the sentence just started, and is well formed."""
        index = message.get("index")
        if index != self._index or not isinstance(index, int):
            raise TtsProtocolError(f"words for sentence {index!r} after {self._index!r}")
        items = message.get("words")
        if not isinstance(items, list):
            raise TtsProtocolError(f"words message without a words list: {message!r}")
        words = tuple(_word(item) for item in items)
        if any(w.start_ms > w.end_ms for w in words) or any(
            a.end_ms > b.start_ms for a, b in itertools.pairwise(words)
        ):
            raise TtsProtocolError(f"words of sentence {index} overlap or run backwards")
        return TtsWords(index, words)

    def audio(self, data: bytes) -> TtsAudio:
        if self._index is None:
            raise TtsProtocolError("audio frame before any sentence_start")
        return TtsAudio(self._index, data)


def _word(item: Any) -> TtsWord:
    if not isinstance(item, dict):
        raise TtsProtocolError(f"a word must be an object, got {item!r}")
    text, start, end = item.get("text"), item.get("start_ms"), item.get("end_ms")
    if not isinstance(text, str) or not _is_ms(start) or not _is_ms(end):
        raise TtsProtocolError(f"a word needs text, start_ms and end_ms: {item!r}")
    return TtsWord(text, int(start), int(end))


def _is_ms(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0

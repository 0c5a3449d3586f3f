"""What a session's options are, and what the server says back, as typed values.

`SessionOptions` is what a session is opened with (its first `start`). The server's control
messages (docs/protocol.md) are decoded ONCE, by `FrameDecoder`, into the dataclasses here;
each carries its wire `type` as a class attribute, and `CONTROL_EVENTS` (type -> class) is the
list of server message types this client knows (the contract test compares it with the
server's). A missing optional field takes the protocol's default; a field of the wrong type
is a `TtsProtocolError`. Every event keeps the raw message as `.raw` (not compared; also
`.message`, except on `ServerError`, whose `message` is the protocol's field), so a field a
newer server adds is still there to read, and a control message of a type this
client does not know is an `UnknownControl` that readers ignore.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeGuard

from .messages import DEFAULT_SAMPLE_RATE, ClientMessageType


class _Raw:
    """`.message`: the raw control message (for fields a newer server adds)."""

    raw: dict[str, Any]

    @property
    def message(self) -> dict[str, Any]:
        return self.raw


class TtsProtocolError(Exception):
    """The server broke the session protocol (e.g. audio before any sentence_start)."""


@dataclass(frozen=True)
class SessionOptions:
    """The session defaults sent in the first `start`; an unset voice or speed is the
    server's default."""

    voice: str | None = None
    audio_format: str = "pcm"
    sample_rate: int = DEFAULT_SAMPLE_RATE
    word_timestamps: bool = False
    speed: float | None = None

    def start_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": ClientMessageType.START,
            "format": self.audio_format,
            "sample_rate": self.sample_rate,
        }
        if self.voice:
            msg["voice"] = self.voice
        if self.word_timestamps:  # only then: a v1 server never sees the field
            msg["word_timestamps"] = True
        if self.speed is not None:  # unset: the server's default (1.0)
            msg["speed"] = self.speed
        return msg


@dataclass(frozen=True)
class SentenceStart(_Raw):
    """Sentence `index` begins; its binary frames follow. `format`/`sample_rate` are None
    only when the server left them out (then the session's own apply)."""

    type: ClassVar[str] = "sentence_start"
    index: int
    text: str = ""
    format: str | None = None
    sample_rate: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TtsWord:
    text: str
    start_ms: int  # from the first sample of the sentence's audio
    end_ms: int


@dataclass(frozen=True)
class TtsWords(_Raw):
    """When each written word of sentence `index` is spoken (protocol v1.1 `words`)."""

    type: ClassVar[str] = "words"
    index: int
    words: tuple[TtsWord, ...]
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class SynthesisComplete(_Raw):
    """The last binary frame of sentence `index` went out."""

    type: ClassVar[str] = "synthesis_complete"
    index: int | None = None
    audio_bytes: int = 0
    duration_s: float = 0.0
    synth_ms: float | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Flushed(_Raw):
    """All audio of the text sent before the `flush` has been sent."""

    type: ClassVar[str] = "flushed"
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Cancelled(_Raw):
    """After `cancel`: no audio of the `dropped` sentences follows."""

    type: ClassVar[str] = "cancelled"
    dropped: int = 0
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class ServerError:
    """The server's `error`; a non-fatal one about a sentence carries its `index` and `text`
    (the sentence it could not speak)."""

    type: ClassVar[str] = "error"
    code: str
    message: str = ""  # the protocol's `message` field; the raw dict is `.raw`
    fatal: bool = False
    index: int | None = None
    text: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def describe(self) -> str:
        """The error in words, for a log line or a framework's error."""
        where = f" in sentence {self.index} ({self.text!r})" if self.index is not None else ""
        return f"Kokoro TTS error {self.code}{where}: {self.message}"


@dataclass(frozen=True)
class SessionEnd(_Raw):
    """After `close`: the session's totals; nothing follows."""

    type: ClassVar[str] = "session_end"
    sentences: int = 0
    audio_s: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class UnknownControl(_Raw):
    """A control message of a type this client does not know (a newer server's): ignore it."""

    type: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


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


ControlEvent = (
    SentenceStart
    | TtsWords
    | SynthesisComplete
    | Flushed
    | Cancelled
    | ServerError
    | SessionEnd
    | UnknownControl
)
TtsEvent = ControlEvent | TtsAudio | TtsFailure

# The server message types this client knows, by their wire `type`.
CONTROL_EVENTS: dict[str, type[Any]] = {
    cls.type: cls
    for cls in (
        SentenceStart,
        TtsWords,
        SynthesisComplete,
        Flushed,
        Cancelled,
        ServerError,
        SessionEnd,
    )
}


def control_event(message: dict[str, Any]) -> ControlEvent:
    """The typed event of one control message (stateless: FrameDecoder checks the order)."""
    kind = message.get("type")
    if kind == SentenceStart.type:
        index = message.get("index")
        if not _is_count(index):
            raise TtsProtocolError(f"sentence_start without an integer index: {message!r}")
        return SentenceStart(
            index,
            _field(message, "text", str, ""),
            _field(message, "format", str, None),
            _field(message, "sample_rate", int, None),
            message,
        )
    if kind == TtsWords.type:
        return _words(message)
    if kind == SynthesisComplete.type:
        return SynthesisComplete(
            _field(message, "index", int, None),
            _field(message, "audio_bytes", int, 0),
            float(_field(message, "duration_s", float, 0.0)),
            _field(message, "synth_ms", float, None),
            message,
        )
    if kind == Flushed.type:
        return Flushed(message)
    if kind == Cancelled.type:
        return Cancelled(_field(message, "dropped", int, 0), message)
    if kind == ServerError.type:
        return _server_error(message)
    if kind == SessionEnd.type:
        return SessionEnd(
            _field(message, "sentences", int, 0),
            float(_field(message, "audio_s", float, 0.0)),
            message,
        )
    return UnknownControl(str(kind or ""), message)


def _server_error(message: dict[str, Any]) -> ServerError:
    # Lenient on the sentence fields: an error must reach the caller even if they are odd.
    index, text = message.get("index"), message.get("text")
    return ServerError(
        str(message.get("code", "error")),
        str(message.get("message", "")),
        _field(message, "fatal", bool, False),
        index if _is_count(index) else None,
        text if isinstance(text, str) else None,
        message,
    )


def _words(message: dict[str, Any]) -> TtsWords:
    index = message.get("index")
    if not _is_count(index):
        raise TtsProtocolError(f"words without an integer index: {message!r}")
    items = message.get("words")
    if not isinstance(items, list):
        raise TtsProtocolError(f"words message without a words list: {message!r}")
    words = tuple(_word(item) for item in items)
    if any(w.start_ms > w.end_ms for w in words) or any(
        a.end_ms > b.start_ms for a, b in itertools.pairwise(words)
    ):
        raise TtsProtocolError(f"words of sentence {index} overlap or run backwards")
    return TtsWords(index, words, message)


def _word(item: Any) -> TtsWord:
    if not isinstance(item, dict):
        raise TtsProtocolError(f"a word must be an object, got {item!r}")
    text, start, end = item.get("text"), item.get("start_ms"), item.get("end_ms")
    if not isinstance(text, str) or not _is_ms(start) or not _is_ms(end):
        raise TtsProtocolError(f"a word needs text, start_ms and end_ms: {item!r}")
    return TtsWord(text, int(start), int(end))


def _field[T](message: dict[str, Any], key: str, kind: type[T], default: Any) -> Any:
    """`message[key]` if it is a `kind` (an int counts as a float; a bool as neither int nor
    float), the default when absent or null, else TtsProtocolError."""
    value = message.get(key)
    if value is None:
        return default
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise TtsProtocolError(f"{message.get('type')} has a bad {key!r}: {value!r}")
    return value


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_ms(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0

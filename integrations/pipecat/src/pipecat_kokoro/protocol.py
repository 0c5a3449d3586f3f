"""The Kokoro bidirectional session protocol (v1 + v1.1 `words`), client side.

Client messages are JSON objects; the server answers JSON control messages and raw audio.
Where the transport keeps frame types (WebSocket text/binary, SageMaker DataType UTF8/BINARY)
they decide; without them a payload is a control message only if the WHOLE payload decodes
as a JSON object, since signed 16-bit PCM may start with `{` (0x7B).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# The server's output rates (docs/protocol.md); anything else is resampled on this side.
SERVER_SAMPLE_RATES = (8000, 16000, 22050, 24000)
NATIVE_SAMPLE_RATE = 24000
BYTES_PER_SAMPLE = 2  # pcm: signed 16-bit little-endian mono


class ProtocolViolation(Exception):
    """The server sent something the protocol does not allow (the session cannot be trusted)."""


@dataclass(frozen=True)
class Control:
    """One JSON control message from the server."""

    message: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.message.get("type", ""))

    def get(self, key: str, default: Any = None) -> Any:
        return self.message.get(key, default)


@dataclass(frozen=True)
class Audio:
    """Raw audio bytes of the sentence announced by the last `sentence_start`."""

    data: bytes


ServerMessage = Control | Audio


@dataclass(frozen=True)
class Word:
    text: str
    start_s: float
    end_s: float


def start_message(
    *, voice: str | None, speed: float | None, sample_rate: int, word_timestamps: bool = True
) -> dict[str, Any]:
    """Session defaults: PCM at `sample_rate`, v1.1 word timestamps (a v1 server ignores the
    flag), and the voice/speed when set (unset: the server's defaults)."""
    msg: dict[str, Any] = {"type": "start", "format": "pcm", "sample_rate": sample_rate}
    if word_timestamps:
        msg["word_timestamps"] = True
    if voice:
        msg["voice"] = voice
    if speed is not None:
        msg["speed"] = speed
    return msg


def text_message(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def control_message(kind: str) -> dict[str, Any]:
    if kind not in ("flush", "cancel", "close"):
        raise ValueError(f"not a control message: {kind!r}")
    return {"type": kind}


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8")


def parse_control(payload: bytes | str) -> Control | None:
    """The control message if the whole payload is one JSON object, else None."""
    if isinstance(payload, bytes):
        if payload.lstrip()[:1] != b"{":
            return None
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        value = json.loads(payload)
    except ValueError:
        return None
    return Control(value) if isinstance(value, dict) else None


def decode_text_frame(payload: bytes | str) -> Control:
    """A frame the transport typed as text (UTF8) must be one JSON object."""
    control = parse_control(payload)
    if control is None:
        raise ProtocolViolation(f"text frame is not a JSON object: {payload[:80]!r}")
    return control


def decode_untyped(payload: bytes) -> ServerMessage:
    """A payload whose transport lost the frame type: the whole-payload JSON rule."""
    control = parse_control(payload)
    return control if control is not None else Audio(payload)


def server_sample_rate(pipeline_rate: int) -> int:
    """The rate to ask the server for: the pipeline's own when the server can produce it,
    else the model's native 24 kHz (resampled here)."""
    return pipeline_rate if pipeline_rate in SERVER_SAMPLE_RATES else NATIVE_SAMPLE_RATE


def words_of(control: Control) -> list[Word]:
    """The `words` of a v1.1 words message, validated (in order, non-negative, non-overlapping)."""
    raw = control.get("words")
    if not isinstance(raw, list):
        raise ProtocolViolation(f"words message without a words list: {control.message!r}")
    words: list[Word] = []
    previous_end = 0.0
    for item in raw:
        if not isinstance(item, dict):
            raise ProtocolViolation(f"word is not an object: {item!r}")
        text, start, end = item.get("text"), item.get("start_ms"), item.get("end_ms")
        if not isinstance(text, str) or not _is_number(start) or not _is_number(end):
            raise ProtocolViolation(f"word needs text, start_ms and end_ms: {item!r}")
        if start < previous_end or end < start:
            raise ProtocolViolation(f"words out of order or overlapping at {item!r}")
        previous_end = end
        words.append(Word(text, start / 1000.0, end / 1000.0))
    return words


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)

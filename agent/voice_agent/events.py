"""Agent event types and their two wire encodings (SSE JSON with base64, WebSocket frames).

Internally an event is a dict with a `type`, except audio, which keeps raw bytes until it is
encoded: base64 in SSE, a binary frame right after its `audio` header on the WebSocket.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    """The `type` of an agent event (SSE data and /ws text frames)."""

    TEXT = "text"
    AUDIO = "audio"
    SENTENCE = "sentence"
    WORDS = "words"
    DONE = "done"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    VOICES = "voices"  # the answer to {"list": "voices"}


@dataclass(frozen=True)
class AudioEvent:
    index: int
    format: str
    sample_rate: int
    data: bytes

    def header(self) -> dict[str, Any]:
        return {
            "type": EventType.AUDIO,
            "index": self.index,
            "format": self.format,
            "sample_rate": self.sample_rate,
            "bytes": len(self.data),
        }


AgentEvent = dict[str, Any] | AudioEvent


def text_event(delta: str) -> dict[str, Any]:
    return {"type": EventType.TEXT, "delta": delta}


def sentence_event(index: int, text: str, offset_ms: float) -> dict[str, Any]:
    """`offset_ms`: where this sentence's audio starts on the answer's clock (from the
    answer's first audio sample, all sentences before it played back to back)."""
    return {"type": EventType.SENTENCE, "index": index, "text": text, "offset_ms": offset_ms}


def words_event(index: int, offset_ms: float, words: list[dict[str, Any]]) -> dict[str, Any]:
    """The TTS's `words` message (times from the sentence's first sample) plus the
    sentence's offset on the answer's clock, so a caller can show captions in sync."""
    return {"type": EventType.WORDS, "index": index, "offset_ms": offset_ms, "words": words}


def interrupted_event(played_ms: float | None, heard: str) -> dict[str, Any]:
    """The last event of an answer the caller interrupted: what the agent remembers of it."""
    return {"type": EventType.INTERRUPTED, "played_ms": played_ms, "heard": heard}


def error_event(
    code: str,
    message: str,
    fatal: bool = True,
    *,
    index: int | None = None,
    text: str | None = None,
) -> dict[str, Any]:
    """An error; one about a sentence the TTS could not speak carries its `index` and `text`."""
    event: dict[str, Any] = {"type": EventType.ERROR, "code": code, "message": message}
    event["fatal"] = fatal
    if index is not None:
        event["index"] = index
    if text is not None:
        event["text"] = text
    return event


def done_event(metrics: dict[str, Any]) -> dict[str, Any]:
    return {"type": EventType.DONE, "metrics": metrics}


def is_last(event: AgentEvent) -> bool:
    """`done`, or a fatal `error`: nothing follows it in this answer."""
    if isinstance(event, AudioEvent):
        return False
    return event["type"] == EventType.DONE or (
        event["type"] == EventType.ERROR and bool(event["fatal"])
    )


def to_json_event(event: AgentEvent) -> dict[str, Any]:
    """The SSE form: audio carries its bytes base64-encoded in `data`."""
    if isinstance(event, AudioEvent):
        return {**event.header(), "data": base64.b64encode(event.data).decode("ascii")}
    return event


def to_sse(event: AgentEvent) -> bytes:
    return f"data: {json.dumps(to_json_event(event), ensure_ascii=False)}\n\n".encode()


def to_ws_frames(event: AgentEvent) -> list[str | bytes]:
    """WebSocket form: JSON text frames; audio is its header frame then one binary frame."""
    if isinstance(event, AudioEvent):
        return [json.dumps(event.header()), event.data]
    return [json.dumps(event, ensure_ascii=False)]

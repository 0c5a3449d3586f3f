"""The message types of the bidirectional session protocol v1 (docs/protocol.md), server side.

The agent's client defines the same values in `kokoro_stream.messages`; a contract test
round-trips every server message builder (protocol.py) through that client's decoder.
"""

from __future__ import annotations

from enum import StrEnum


class ClientType(StrEnum):
    """The `type` of a client frame. A frame with `text` but no `type` is an utterance."""

    START = "start"
    TEXT = "text"
    FLUSH = "flush"
    CANCEL = "cancel"
    CLOSE = "close"


class ServerType(StrEnum):
    """The `type` of a server control message (always a text frame)."""

    SENTENCE_START = "sentence_start"
    WORDS = "words"  # v1.1, when `start` asked for word timestamps
    SYNTHESIS_COMPLETE = "synthesis_complete"
    FLUSHED = "flushed"
    CANCELLED = "cancelled"
    ERROR = "error"
    SESSION_END = "session_end"

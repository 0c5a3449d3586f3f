"""The message types of the bidirectional session protocol v1, as the client sees them.

The server defines the same values in `kokoro_server.serving.messages` (a separate image, so
no shared import); a contract test round-trips every server message through this client's decoder.
"""

from __future__ import annotations

from enum import StrEnum

# `pcm` is 16-bit mono at the session's sample_rate; this is the protocol's default rate.
DEFAULT_SAMPLE_RATE = 24_000
# The `speed` the server accepts (its MIN_SPEED, MAX_SPEED; the contract test compares them).
SPEED_RANGE = (0.5, 2.0)


class ClientMessageType(StrEnum):
    """What the client sends."""

    START = "start"
    TEXT = "text"
    FLUSH = "flush"
    CANCEL = "cancel"
    CLOSE = "close"


class ServerMessageType(StrEnum):
    """The `type` of a control message (text frame) from the server."""

    SENTENCE_START = "sentence_start"
    WORDS = "words"  # v1.1, when `start` asked for word timestamps
    SYNTHESIS_COMPLETE = "synthesis_complete"
    FLUSHED = "flushed"
    CANCELLED = "cancelled"
    ERROR = "error"
    SESSION_END = "session_end"

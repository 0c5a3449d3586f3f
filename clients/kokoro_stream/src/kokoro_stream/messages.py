"""What the client sends in the bidirectional session protocol v1, and its numeric limits.

The server's messages are the typed events of `events.py` (each carries its wire type). The
server is a separate image, so nothing is imported from it: tests/test_protocol_contract.py
checks that the server parses every builder here and that both sides name the same types.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

# `pcm` is 16-bit mono at the session's sample_rate; this is the protocol's default rate.
DEFAULT_SAMPLE_RATE = 24_000
# The `speed` the server accepts (its MIN_SPEED, MAX_SPEED; the contract test compares them).
SPEED_RANGE = (0.5, 2.0)
# The rates the server produces (docs/protocol.md); clients resample anything else from 24 kHz.
SERVER_SAMPLE_RATES = (8000, 16000, 22050, 24000)
BYTES_PER_SAMPLE = 2  # pcm: signed 16-bit little-endian mono


class ClientMessageType(StrEnum):
    """What the client sends."""

    START = "start"
    TEXT = "text"
    FLUSH = "flush"
    CANCEL = "cancel"
    CLOSE = "close"


def text_message(text: str) -> dict[str, Any]:
    return {"type": ClientMessageType.TEXT.value, "text": text}


def control_message(kind: str) -> dict[str, Any]:
    """`flush`, `cancel` or `close` (fields-less client messages)."""
    if kind not in (ClientMessageType.FLUSH, ClientMessageType.CANCEL, ClientMessageType.CLOSE):
        raise ValueError(f"not a field-less client message: {kind!r}")
    return {"type": str(kind)}


def keepalive_message() -> dict[str, Any]:
    """A `start` without fields: the server merges no change and answers nothing, and its idle
    timer (300 s by default) starts again. WebSocket pings do not count as messages there,
    and SageMaker's stream has none."""
    return {"type": ClientMessageType.START.value}


def server_sample_rate(wanted: int) -> int:
    """The rate to ask the server for: `wanted` when the server produces it, else 24 kHz."""
    return wanted if wanted in SERVER_SAMPLE_RATES else DEFAULT_SAMPLE_RATE

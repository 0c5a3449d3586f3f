"""Tell control messages from audio in a stream that may have lost its frame types.

Rule (docs/protocol.md): a payload is a control message only if the WHOLE payload decodes as a JSON
object. A leading `{` proves nothing: signed 16-bit PCM can start with 0x7B. Where the transport
carries a type (WebSocket text/binary, SageMaker DataType UTF8/BINARY) that type wins.
"""

from __future__ import annotations

import json
from typing import Any

UTF8 = "UTF8"
BINARY = "BINARY"


class ControlDecodeError(ValueError):
    """A payload typed as UTF-8 control text is not a JSON object."""


def parse_control(payload: bytes) -> dict[str, Any] | None:
    """The JSON object if the whole payload is one, else None."""
    if not payload or payload.lstrip()[:1] != b"{":
        return None
    try:
        value = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def classify(payload: bytes, data_type: str | None = None) -> dict[str, Any] | bytes:
    """A control dict or audio bytes, preferring the transport's data type when given."""
    if data_type == BINARY:
        return payload
    if data_type == UTF8:
        message = parse_control(payload)
        if message is None:
            raise ControlDecodeError(f"UTF8 payload is not a JSON object: {payload[:80]!r}")
        return message
    message = parse_control(payload)
    return payload if message is None else message

"""Reading the structured part of the packages' log records in tests."""

from __future__ import annotations

import logging
from typing import Any


def log_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a log call passed as `extra={"fields": {...}}`: what the JSON log line adds
    to ts, level, logger and msg (kokoro_server.logs, voice_agent.turn_log)."""
    fields = getattr(record, "fields", None)
    assert isinstance(fields, dict), f"{record.getMessage()!r} was logged without fields"
    return fields

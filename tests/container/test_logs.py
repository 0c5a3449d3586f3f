"""Structured logs: fields given with `extra=fields(...)` become keys of the JSON line."""

from __future__ import annotations

import io
import json
import logging

from kokoro_server.logs import JsonFormatter, fields


def test_fields_become_keys_of_one_json_line() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    log = logging.getLogger("kokoro.test_logs")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("session refused", extra=fields(reason="busy", active=32))
    finally:
        log.removeHandler(handler)
    entry = json.loads(stream.getvalue())
    assert entry["msg"] == "session refused" and entry["level"] == "warning"
    assert (entry["reason"], entry["active"]) == ("busy", 32)

"""A logger's records captured as its production formatter writes them: one JSON line each
(the agent's turn records, the server's session records, the metric filters run over both)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def json_lines(logger_name: str, formatter: logging.Formatter) -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)

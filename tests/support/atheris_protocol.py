"""Coverage-guided fuzzing (atheris + libFuzzer) of the frame decoder and message parser.

The hypothesis fuzz drives a live server; this harness instead runs the pure protocol layer
in-process, hundreds of thousands of inputs a minute, guided by coverage. Invariants for any
byte string, sent as a binary frame or as a text frame:
- decode_frame + parse_message either return a message or raise ProtocolError with one of
  the documented codes; nothing else escapes (no TypeError, RecursionError, ...);
- an accepted message holds only values the server can use and echo: known type, text a
  str within the limit that encodes to UTF-8, speed finite and in range, known format/rate.

    .venv/bin/python -m tests.support.atheris_protocol \\
        -atheris_runs=200000 -dict=tests/support/protocol.dict
"""

from __future__ import annotations

import math
import sys

import atheris

# From the module that defines it: the types-atheris stubs do not re-export it from atheris.
from atheris.import_hook import instrument_imports

with instrument_imports():
    from kokoro_server.serving import protocol

from kokoro_server.audio.encoding import FORMATS, SAMPLE_RATES
from kokoro_server.config import Settings
from kokoro_server.model_facts import MAX_SPEED, MIN_SPEED

LIMITS = Settings()
CODES = {
    "invalid_json",
    "unknown_type",
    "missing_text",
    "text_too_long",
    "bad_parameter",
    "frame_too_large",
}


def check_message(msg: protocol.ClientMessage) -> None:
    assert msg.type in (*protocol.CLIENT_TYPES, "utterance"), msg.type
    assert isinstance(msg.text, str) and len(msg.text) <= LIMITS.max_text_chars
    msg.text.encode("utf-8")  # must be echoable in sentence_start
    if msg.request_id is not None:
        msg.request_id.encode("utf-8")
    opts = msg.options
    if opts.speed is not None:
        assert math.isfinite(opts.speed) and MIN_SPEED <= opts.speed <= MAX_SPEED
    assert opts.voice is None or (isinstance(opts.voice, str) and opts.voice)
    assert opts.format is None or opts.format in FORMATS
    assert opts.sample_rate is None or opts.sample_rate in SAMPLE_RATES


def one_input(data: bytes) -> None:
    as_text = data[:1] == b"T"  # first byte picks the frame kind, like a WebSocket opcode
    payload: str | bytes = data[1:].decode("utf-8", "replace") if as_text else data[1:]
    try:
        obj = protocol.decode_frame(payload, LIMITS.max_frame_bytes)
        msg = protocol.parse_message(obj, LIMITS.max_text_chars)
    except protocol.ProtocolError as exc:
        assert exc.code in CODES, exc.code
        assert exc.message
        return
    check_message(msg)


def main(argv: list[str]) -> None:
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)

"""Control vs audio: only a payload that is WHOLLY a JSON object is control."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kokoro_stream.classify import ControlDecodeError, classify, parse_control


def test_whole_json_object_is_control() -> None:
    msg = {"type": "sentence_start", "index": 0, "text": "Hi.", "format": "pcm"}
    assert classify(json.dumps(msg).encode()) == msg
    assert classify(b'  {"type": "flushed"}\n') == {"type": "flushed"}


def test_pcm_starting_with_brace_is_audio() -> None:
    # 0x7B 0x22 is the int16 sample 8827: ordinary speech can start with `{"`.
    pcm = struct.pack("<4h", 8827, -3, 120, 8827)
    assert pcm[:2] == b'{"'
    assert classify(pcm) == pcm
    assert classify(b"{") == b"{"


@pytest.mark.parametrize(
    "payload",
    [
        b'{"type": "sentence_start"} trailing',  # JSON object followed by more bytes
        b'{"type": "text"',  # truncated
        b'{"a": 1}{"b": 2}',  # two objects
        b"[1, 2, 3]",  # JSON, but not an object
        b'"{}"',
        b"42",
        b'{"type": "\xff\xfe"}',  # invalid UTF-8
        b"",
    ],
)
def test_json_looking_text_that_is_not_one_whole_object_is_audio(payload: bytes) -> None:
    assert parse_control(payload) is None
    assert classify(payload) == payload


def test_data_type_wins_over_content() -> None:
    control = b'{"type": "flushed"}'
    assert classify(control, "BINARY") == control  # typed audio stays audio
    assert classify(control, "UTF8") == {"type": "flushed"}
    with pytest.raises(ControlDecodeError, match="not a JSON object"):
        classify(b'{"type": "x"} junk', "UTF8")


@given(st.binary(min_size=1, max_size=64))
def test_random_pcm_after_a_brace_is_audio_unless_it_is_a_json_object(tail: bytes) -> None:
    payload = b"{" + tail
    result = classify(payload)
    try:
        decoded = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        decoded = None
    if isinstance(decoded, dict):
        assert result == decoded
    else:
        assert result == payload

"""Frame parsing and validation rules of protocol v1, one rule at a time."""

from __future__ import annotations

import json

import pytest

from kokoro_server.serving import protocol
from kokoro_server.serving.protocol import ProtocolError


def parse(obj):
    return protocol.parse_message(obj, max_text_chars=100)


def test_text_and_binary_payloads_decode_alike():
    frame = {"type": "text", "text": "héllo"}
    as_text = protocol.decode_frame(json.dumps(frame), 1000)
    as_bytes = protocol.decode_frame(json.dumps(frame).encode(), 1000)
    assert as_text == as_bytes == frame


def test_deeply_nested_json_is_invalid_not_a_crash():
    with pytest.raises(ProtocolError) as err:
        protocol.decode_frame("[" * 100_000 + "]" * 100_000, 10**6)
    assert err.value.code == "invalid_json"


def test_frame_size_is_checked_in_bytes():
    with pytest.raises(ProtocolError) as err:
        protocol.decode_frame('{"text": "' + "é" * 40 + '"}', 60)
    assert err.value.code == "frame_too_large"


def test_start_collects_all_options():
    msg = parse(
        {
            "type": "start",
            "voice": "af",
            "speed": 1.25,
            "format": "mp3",
            "sample_rate": 16000,
            "request_id": "r-1",
        }
    )
    assert msg.options == protocol.Options("af", 1.25, "mp3", 16000)
    assert msg.request_id == "r-1"


def test_bare_text_is_an_utterance_and_unknown_fields_are_ignored():
    msg = parse({"text": "hi", "extra": {"x": 1}})
    assert msg.type == "utterance" and msg.text == "hi"


@pytest.mark.parametrize(
    ("obj", "code"),
    [
        ({"type": "start", "speed": True}, "bad_parameter"),
        ({"type": "start", "speed": float("inf")}, "bad_parameter"),
        ({"type": "start", "speed": 0.49}, "bad_parameter"),
        ({"type": "start", "sample_rate": True}, "bad_parameter"),
        ({"type": "start", "sample_rate": "24000"}, "bad_parameter"),
        ({"type": "start", "request_id": ["x"]}, "bad_parameter"),
        ({"type": "start", "voice": ""}, "bad_parameter"),
        ({"type": "text", "text": None}, "missing_text"),
        ({"type": "text", "text": "x" * 101}, "text_too_long"),
        ({"type": None, "voice": "a"}, "unknown_type"),
        ({"type": "TEXT", "text": "a"}, "unknown_type"),
    ],
)
def test_invalid_messages(obj, code):
    with pytest.raises(ProtocolError) as err:
        parse(obj)
    assert err.value.code == code


def test_server_messages_are_compact_json():
    assert json.loads(protocol.error("busy", "full", fatal=True)) == {
        "type": "error",
        "code": "busy",
        "message": "full",
        "fatal": True,
    }

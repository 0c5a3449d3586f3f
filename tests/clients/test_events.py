"""The typed events: each server message is decoded once, missing optional fields take the
protocol's defaults, a field of the wrong type breaks the protocol, an error's sentence
fields are read leniently (the error must reach the caller), and `SessionOptions` writes the
`start` message a v1 server expects."""

from __future__ import annotations

from typing import Any

import pytest
from kokoro_stream import (
    FrameDecoder,
    SentenceStart,
    ServerError,
    SessionEnd,
    SessionOptions,
    SynthesisComplete,
    TtsProtocolError,
    UnknownControl,
)


def test_session_options_write_only_what_is_set() -> None:
    assert SessionOptions().start_message() == {
        "type": "start",
        "format": "pcm",
        "sample_rate": 24000,
    }
    assert SessionOptions("af_bella:2+af_sky:1", "mp3", 16000, True, 1.25).start_message() == {
        "type": "start",
        "format": "mp3",
        "sample_rate": 16000,
        "voice": "af_bella:2+af_sky:1",
        "word_timestamps": True,
        "speed": 1.25,
    }


def test_missing_optional_fields_take_the_protocols_defaults() -> None:
    decoder = FrameDecoder()
    assert decoder.control({"type": "sentence_start", "index": 3}) == SentenceStart(3)
    assert decoder.control({"type": "synthesis_complete"}) == SynthesisComplete()
    assert decoder.control({"type": "session_end", "sentences": 2}) == SessionEnd(2, 0.0)
    assert decoder.audio(b"\x00\x01").index == 3


@pytest.mark.parametrize(
    "message",
    [
        {"type": "sentence_start", "index": "0"},
        {"type": "sentence_start", "index": True},
        {"type": "sentence_start", "index": 0, "sample_rate": "fast"},
        {"type": "sentence_start", "index": 0, "text": 5},
        {"type": "synthesis_complete", "index": 0, "duration_s": float("nan")},
        {"type": "synthesis_complete", "index": 0, "audio_bytes": 1.5},
        {"type": "cancelled", "dropped": "2"},
        {"type": "error", "code": "internal", "fatal": "yes"},
        {"type": "session_end", "audio_s": [1]},
    ],
)
def test_a_field_of_the_wrong_type_breaks_the_protocol(message: dict[str, Any]) -> None:
    with pytest.raises(TtsProtocolError):
        FrameDecoder().control(message)


def test_an_errors_sentence_fields_are_read_leniently_and_described() -> None:
    raw = {"type": "error", "code": "internal", "message": "failed", "index": "2", "text": 7}
    error = FrameDecoder().control(raw)
    assert error == ServerError("internal", "failed", False, None, None)
    assert error.raw == raw
    assert error.describe() == "Kokoro TTS error internal: failed"


def test_an_unknown_type_is_kept_for_reading_and_compares_by_type() -> None:
    event = FrameDecoder().control({"type": "metrics", "rtf": 0.1})
    assert event == UnknownControl("metrics")
    assert event.message == {"type": "metrics", "rtf": 0.1}
    assert FrameDecoder().control({"no": "type"}) == UnknownControl("")

"""The protocol core without Pipecat: how one ordered Kokoro stream maps onto turns."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from kokoro_stream import (
    FrameDecoder,
    ServerError,
    SessionOptions,
    TtsAudio,
    TtsEvent,
    TtsProtocolError,
    server_sample_rate,
)

from pipecat_kokoro.router import PlayAudio, PlayWords, TurnFinished, TurnRouter

ProtocolViolation = TtsProtocolError


def Control(message: dict[str, Any]) -> TtsEvent:
    """A control message as kokoro_stream's decoder turns it into an event (words included)."""
    decoder = FrameDecoder()
    if message.get("type") == "words":
        decoder.control({"type": "sentence_start", "index": message["index"]})
    return decoder.control(message)


def Audio(data: bytes) -> TtsAudio:
    return TtsAudio(0, data)


def sentence(router: TurnRouter, index: int, pcm: bytes, words=None) -> list:
    actions = router.receive(
        Control(
            {
                "type": "sentence_start",
                "index": index,
                "text": "x",
                "format": "pcm",
                "sample_rate": 24000,
            }
        )
    )
    if words is not None:
        actions += router.receive(Control({"type": "words", "index": index, "words": words}))
    actions += router.receive(Audio(pcm))
    actions += router.receive(
        Control({"type": "synthesis_complete", "index": index, "audio_bytes": len(pcm)})
    )
    return actions


def types(messages: list[dict]) -> list[str]:
    return [m["type"] for m in messages]


def test_a_later_turns_text_waits_so_the_servers_segmenter_never_joins_turns() -> None:
    router = TurnRouter()
    assert types(router.text("reply", "Hello wor")) == ["start", "text"]
    assert router.text("speak", "Please hold.") == []  # a TTSSpeakFrame mid-reply waits
    assert router.flush("speak") == []
    out = router.text("reply", "ld.") + router.flush("reply")
    assert [(m["type"], m.get("text")) for m in out] == [
        ("text", "ld."),
        ("flush", None),
        ("text", "Please hold."),
        ("flush", None),
    ]
    # Sentences and flushes arrive in that order: reply first, then the speak turn.
    assert isinstance(sentence(router, 0, b"\x01\x00")[0], PlayAudio)
    assert router.receive(Control({"type": "flushed"})) == [TurnFinished("reply")]
    assert sentence(router, 1, b"\x02\x00")[0].context_id == "speak"
    assert router.receive(Control({"type": "flushed"})) == [TurnFinished("speak")]
    assert router.idle


def test_voice_and_speed_go_out_in_a_start_only_when_they_change() -> None:
    session = SessionOptions(sample_rate=16000, word_timestamps=True)
    heart = replace(session, voice="af_heart")
    router = TurnRouter(session)
    first = router.text("a", "Hi.", heart)
    assert first[0] == {
        "type": "start",
        "format": "pcm",
        "sample_rate": 16000,
        "word_timestamps": True,
        "voice": "af_heart",
    }
    router.flush("a")
    assert types(router.text("b", "Again.", heart)) == ["text"]
    router.flush("b")
    assert router.text("c", "Faster.", replace(heart, speed=1.5))[0]["speed"] == 1.5


def test_cancel_drops_everything_until_the_servers_cancelled() -> None:
    router = TurnRouter()
    router.text("a", "One. Two. Three.")
    router.flush("a")
    router.receive(
        Control(
            {
                "type": "sentence_start",
                "index": 0,
                "text": "One.",
                "format": "pcm",
                "sample_rate": 24000,
            }
        )
    )
    assert router.interrupt(keep=set()) == [{"type": "cancel"}]
    # In flight before the server read the cancel: the rest of sentence 0, a whole
    # sentence 1, the flush answer. None of it reaches Pipecat.
    assert router.receive(Audio(b"\x00\x01")) == []
    assert (
        router.receive(Control({"type": "synthesis_complete", "index": 0, "audio_bytes": 2})) == []
    )
    assert sentence(router, 1, b"\x00\x02") == []
    assert router.receive(Control({"type": "flushed"})) == []
    router.text("b", "Next.")
    router.flush("b")
    assert router.receive(Control({"type": "cancelled", "dropped": 2})) == []
    assert sentence(router, 2, b"\x05\x00") == [PlayAudio("b", b"\x05\x00", 24000)]
    assert router.receive(Control({"type": "flushed"})) == [TurnFinished("b")]


def test_interrupting_next_to_an_uninterruptible_turn_discards_here_instead_of_cancel() -> None:
    router = TurnRouter()
    router.text("keep", "Please hold on.")
    router.flush("keep")
    router.text("drop", "Half a sent")
    # A server cancel would drop "keep" too: flush "drop" and discard its audio here.
    assert router.interrupt(keep={"keep"}) == [{"type": "flush"}]
    assert sentence(router, 0, b"\x01\x00") == [PlayAudio("keep", b"\x01\x00", 24000)]
    assert router.receive(Control({"type": "flushed"})) == [TurnFinished("keep")]
    assert sentence(router, 1, b"\x02\x00") == []
    assert router.receive(Control({"type": "flushed"})) == []
    assert router.idle


def test_words_are_offset_by_the_turns_earlier_audio() -> None:
    router = TurnRouter()
    router.text("a", "Hi. Bye.")
    router.flush("a")
    one_second = b"\x00\x00" * 24000
    first = sentence(router, 0, one_second, [{"text": "Hi.", "start_ms": 0, "end_ms": 300}])
    second = sentence(router, 1, one_second, [{"text": "Bye.", "start_ms": 250, "end_ms": 600}])
    assert first[0] == PlayWords("a", [("Hi.", 0.0)])
    assert second[0] == PlayWords("a", [(" Bye.", 1.25)])  # the space the text has


def test_what_the_protocol_forbids_is_a_violation() -> None:
    router = TurnRouter()
    with pytest.raises(ProtocolViolation, match="audio before any sentence_start"):
        router.receive(Audio(b"\x00\x00"))
    router.text("a", "Hi.")
    router.flush("a")
    router.receive(
        Control({"type": "sentence_start", "index": 0, "format": "pcm", "sample_rate": 24000})
    )
    router.receive(Audio(b"\x00\x00"))
    with pytest.raises(ProtocolViolation, match="reported 4 audio bytes, 2 arrived"):
        router.receive(Control({"type": "synthesis_complete", "index": 0, "audio_bytes": 4}))
    with pytest.raises(ProtocolViolation, match="without a cancel"):
        router.receive(Control({"type": "cancelled", "dropped": 0}))
    with pytest.raises(ProtocolViolation, match="overlap or run backwards"):
        Control(
            {
                "type": "words",
                "index": 0,
                "words": [
                    {"text": "b", "start_ms": 5, "end_ms": 9},
                    {"text": "a", "start_ms": 1, "end_ms": 2},
                ],
            }
        )


def test_server_errors_keep_code_message_and_fatal() -> None:
    error = {"type": "error", "code": "busy", "message": "too many sessions", "fatal": True}
    assert TurnRouter().receive(Control(error)) == [ServerError("busy", "too many sessions", True)]


def test_a_non_fatal_sentence_error_keeps_its_index_and_text() -> None:
    error = {
        "type": "error",
        "code": "internal",
        "message": "synthesis failed",
        "fatal": False,
        "index": 3,
        "text": "Say this.",
    }
    assert TurnRouter().receive(Control(error)) == [
        ServerError("internal", "synthesis failed", False, 3, "Say this.")
    ]


@pytest.mark.parametrize(
    ("pipeline", "asked"), [(16000, 16000), (24000, 24000), (48000, 24000), (44100, 24000)]
)
def test_the_server_is_asked_for_the_pipeline_rate_when_it_has_it(
    pipeline: int, asked: int
) -> None:
    assert server_sample_rate(pipeline) == asked


def test_a_server_url_gets_the_route_appended_and_must_be_a_web_url() -> None:
    from kokoro_stream.websocket import bidi_url

    with pytest.raises(ValueError, match="ws"):
        bidi_url("ftp://127.0.0.1:8080")
    assert bidi_url("ws://h:1/") == "ws://h:1/invocations-bidirectional-stream"
    assert bidi_url("http://h:1") == "ws://h:1/invocations-bidirectional-stream"
    full = "wss://h/invocations-bidirectional-stream"
    assert bidi_url(full) == full


def test_interrupting_the_only_turn_cancels_and_one_of_two_discards() -> None:
    router = TurnRouter()
    router.text("a", "One.")
    router.flush("a")
    router.text("b", "Two")
    # Pipecat's hook comes once per context: the first drop leaves "b" live (discard "a"),
    # the second finds nothing live and cancels everything on the server.
    assert router.drop("a") == []  # "a" was flushed already: its audio is discarded here
    assert router.drop("b") == [{"type": "cancel"}]
    assert router.receive(Control({"type": "cancelled", "dropped": 2})) == []
    assert router.idle

"""Contract of session protocol v1 between the two images: every server message builder
(kokoro_server.serving.protocol) round-trips through the agent's client decoders (the WebSocket
text-frame decoder and the SageMaker response-stream decoder), and both sides name the same
message types and the same default sample rate. The server and the one client library
(kokoro_stream, used by the agent, devkit and both framework integrations) share no import,
so this test is where they meet."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from aws_sdk_sagemaker_runtime_http2.models import (
    ResponsePayloadPart,
    ResponseStreamEventPayloadPart,
)
from kokoro_stream import events as kokoro_events
from kokoro_stream.base import FrameDecoder
from kokoro_stream.messages import (
    DEFAULT_SAMPLE_RATE,
    SERVER_SAMPLE_RATES,
    SPEED_RANGE,
    ClientMessageType,
    control_message,
    keepalive_message,
    text_message,
)
from kokoro_stream.sagemaker import decode_response_stream

from kokoro_server.audio.encoding import RATES
from kokoro_server.model_facts import MAX_SPEED, MIN_SPEED, SAMPLE_RATE
from kokoro_server.serving import protocol
from kokoro_server.serving.messages import ClientType, ServerType

# One sample of every server message, built by the server's own builders.
BUILT = {
    ServerType.SENTENCE_START: protocol.sentence_start(0, "Déjà vu, 3.14 €.", "pcm", 24000),
    ServerType.WORDS: protocol.words(
        0,
        [
            {"text": "Déjà", "start_ms": 75, "end_ms": 400},
            {"text": "vu,", "start_ms": 425, "end_ms": 650},
            {"text": "3.14", "start_ms": 800, "end_ms": 1800},
            {"text": "€.", "start_ms": 1850, "end_ms": 2300},
        ],
    ),
    ServerType.SYNTHESIS_COMPLETE: protocol.synthesis_complete(0, 4800, 0.1, 12.5),
    ServerType.FLUSHED: protocol.flushed(),
    ServerType.CANCELLED: protocol.cancelled(2),
    ServerType.ERROR: protocol.error("unknown_voice", "no voice 'x'", fatal=False),
    ServerType.SESSION_END: protocol.session_end(1, 0.1),
}


def test_every_server_message_type_has_a_built_sample() -> None:
    assert set(BUILT) == set(ServerType)


def test_both_sides_name_the_same_message_types_and_default_rate() -> None:
    assert {t.value for t in ServerType} == set(kokoro_events.CONTROL_EVENTS)
    assert {t.value for t in ClientType} == {t.value for t in ClientMessageType}
    assert DEFAULT_SAMPLE_RATE == SAMPLE_RATE
    assert SPEED_RANGE == (MIN_SPEED, MAX_SPEED)


WORDS = kokoro_events.TtsWords(
    0,
    (
        kokoro_events.TtsWord("Déjà", 75, 400),
        kokoro_events.TtsWord("vu,", 425, 650),
        kokoro_events.TtsWord("3.14", 800, 1800),
        kokoro_events.TtsWord("€.", 1850, 2300),
    ),
)


# What the client decodes each built sample to: every field the protocol documents, typed.
DECODED = {
    ServerType.SENTENCE_START: kokoro_events.SentenceStart(0, "Déjà vu, 3.14 €.", "pcm", 24000),
    ServerType.SYNTHESIS_COMPLETE: kokoro_events.SynthesisComplete(0, 4800, 0.1, 12.5),
    ServerType.FLUSHED: kokoro_events.Flushed(),
    ServerType.CANCELLED: kokoro_events.Cancelled(2),
    ServerType.ERROR: kokoro_events.ServerError("unknown_voice", "no voice 'x'", fatal=False),
    ServerType.SESSION_END: kokoro_events.SessionEnd(1, 0.1),
}


@pytest.mark.parametrize("kind", [k for k in ServerType if k != ServerType.WORDS], ids=str)
def test_websocket_decoder_reads_each_server_message(kind: ServerType) -> None:
    frame = BUILT[kind]
    control = FrameDecoder().text(frame)
    assert control == DECODED[kind]
    assert type(control) is kokoro_events.CONTROL_EVENTS[kind.value]
    assert control.type == kind.value
    assert control.raw == json.loads(frame)


def test_a_type_this_client_does_not_know_decodes_to_unknown_control() -> None:
    control = FrameDecoder().text('{"type": "newer_thing", "x": 1}')
    assert control == kokoro_events.UnknownControl("newer_thing")
    assert control.message == {"type": "newer_thing", "x": 1}


def test_websocket_decoder_reads_words_of_the_sentence_just_started() -> None:
    decoder = FrameDecoder()
    decoder.text(BUILT[ServerType.SENTENCE_START])
    assert decoder.text(BUILT[ServerType.WORDS]) == WORDS


def _kind(event: kokoro_events.TtsEvent) -> str:
    """A decoded event as the session order names it: its wire type, or "audio"."""
    assert not isinstance(event, kokoro_events.TtsFailure), event  # the stream itself never failed
    return "audio" if isinstance(event, kokoro_events.TtsAudio) else event.type


async def test_sagemaker_decoder_reads_the_whole_session() -> None:
    """The server's messages in session order as SageMaker delivers them (UTF8 control parts,
    BINARY audio parts), through the agent's SageMaker decoder."""
    audio = b"{" + bytes(range(99))  # PCM that starts like JSON
    order = [
        ServerType.SENTENCE_START,
        ServerType.WORDS,
        "audio",
        ServerType.SYNTHESIS_COMPLETE,
        ServerType.FLUSHED,
        ServerType.CANCELLED,
        ServerType.ERROR,
        ServerType.SESSION_END,
    ]

    async def parts() -> AsyncIterator[ResponseStreamEventPayloadPart]:
        for item in order:
            if item == "audio":
                part = ResponsePayloadPart(bytes_=audio, data_type="BINARY")
            else:
                data = BUILT[ServerType(item)].encode("utf-8")
                part = ResponsePayloadPart(bytes_=data, data_type="UTF8")
            yield ResponseStreamEventPayloadPart(value=part)

    events = [e async for e in decode_response_stream(parts())]
    assert [_kind(e) for e in events] == order
    assert events[1] == WORDS and events[2] == kokoro_events.TtsAudio(0, audio)
    controls = [
        e for e in events if not isinstance(e, kokoro_events.TtsAudio | kokoro_events.TtsWords)
    ]
    assert controls == [DECODED[ServerType(k)] for k in order if k not in ("audio", "words")]


def test_the_servers_parser_accepts_what_the_client_sends() -> None:
    start = protocol.parse_message(
        kokoro_events.SessionOptions("af_heart", "mp3", 16000).start_message(), 100
    )
    assert start.type == ClientType.START
    assert (start.options.voice, start.options.format, start.options.sample_rate) == (
        "af_heart",
        "mp3",
        16000,
    )
    for kind in (ClientMessageType.FLUSH, ClientMessageType.CANCEL, ClientMessageType.CLOSE):
        assert protocol.parse_message({"type": kind}, 100).type == ClientType(kind.value)
    assert (
        protocol.parse_message({"type": ClientMessageType.TEXT, "text": "Hi."}, 100).text == "Hi."
    )


def test_the_servers_parser_takes_the_speed_the_client_asks_for() -> None:
    start = protocol.parse_message(kokoro_events.SessionOptions(speed=1.5).start_message(), 100)
    assert start.options.speed == 1.5
    assert (
        protocol.parse_message(kokoro_events.SessionOptions().start_message(), 100).options.speed
        is None
    )


# The builders the framework integrations send with (kokoro_stream.messages).


def test_the_servers_parser_accepts_every_client_builder() -> None:
    start = protocol.parse_message(
        kokoro_events.SessionOptions(
            "jf_alpha", "pcm", 16000, word_timestamps=True, speed=1.2
        ).start_message(),
        100,
    )
    assert start.type == ClientType.START and start.word_timestamps is True
    assert (start.options.voice, start.options.speed, start.options.format) == (
        "jf_alpha",
        1.2,
        "pcm",
    )
    assert start.options.sample_rate == 16000
    text = protocol.parse_message(text_message("Hi."), 100)
    assert (text.type, text.text) == (ClientType.TEXT, "Hi.")
    for kind in ("flush", "cancel", "close"):
        assert protocol.parse_message(control_message(kind), 100).type == kind
    with pytest.raises(ValueError, match="field-less"):
        control_message("text")


def test_the_keepalive_is_a_start_that_changes_nothing() -> None:
    keepalive = protocol.parse_message(keepalive_message(), 100)
    assert keepalive.type == ClientType.START
    assert keepalive.word_timestamps is None and keepalive.lexicon is None
    assert keepalive.options == protocol.parse_message({"type": "start"}, 100).options
    assert all(v is None for v in vars(keepalive.options).values()), keepalive.options


def test_clients_ask_only_for_rates_the_server_produces() -> None:
    assert set(SERVER_SAMPLE_RATES) == set(RATES["pcm"])
    assert DEFAULT_SAMPLE_RATE == SAMPLE_RATE


def test_a_non_fatal_sentence_error_reaches_the_client_with_index_and_text() -> None:
    built = protocol.error("internal", "synthesis failed", fatal=False)
    message = json.loads(built)
    message.update(index=2, text="This one.")
    control = FrameDecoder().text(json.dumps(message))
    assert control == kokoro_events.ServerError(
        "internal", "synthesis failed", False, 2, "This one."
    )
    assert control.describe() == (
        "Kokoro TTS error internal in sentence 2 ('This one.'): synthesis failed"
    )

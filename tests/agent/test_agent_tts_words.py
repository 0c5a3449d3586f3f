"""Word timestamps (protocol v1.1 `words`) through both agent TTS transports: decoded into a
typed `TtsWords` event, from the real Kokoro server over WebSocket, and from the same server's
frames carried as SageMaker response payload parts (AWS itself is not reachable here)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aws_sdk_sagemaker_runtime_http2.models import (
    InvokeEndpointWithBidirectionalStreamOutput,
    ResponsePayloadPart,
    ResponseStreamEvent,
    ResponseStreamEventPayloadPart,
)
from kokoro_stream.base import FrameDecoder
from kokoro_stream.events import (
    SessionOptions,
    TtsAudio,
    TtsEvent,
    TtsFailure,
    TtsProtocolError,
    TtsWord,
    TtsWords,
)
from kokoro_stream.sagemaker import SageMakerBidiTts, decode_response_stream
from kokoro_stream.websocket import WebSocketTts
from smithy_core.aio.eventstream import DuplexEventStream
from websockets.asyncio.client import connect

TEXT = "Hi, Dr. Smith: $5 now."
START = {"type": "sentence_start", "index": 0, "text": "Hi there.", "format": "pcm"}
WORDS: dict[str, Any] = {  # a server message, as JSON decodes it
    "type": "words",
    "index": 0,
    "words": [
        {"text": "Hi", "start_ms": 75, "end_ms": 300},
        {"text": "there.", "start_ms": 350, "end_ms": 700},
    ],
}


def test_start_asks_for_words_only_when_wanted():
    assert "word_timestamps" not in SessionOptions().start_message()  # v1 servers see no change
    assert SessionOptions("af", word_timestamps=True).start_message()["word_timestamps"] is True


def test_words_message_becomes_a_typed_event():
    decoder = FrameDecoder()
    decoder.control(START)
    event = decoder.control(WORDS)
    assert event == TtsWords(0, (TtsWord("Hi", 75, 300), TtsWord("there.", 350, 700)))
    assert event.type == "words"
    assert decoder.audio(b"\x00\x00") == TtsAudio(0, b"\x00\x00")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({**WORDS, "index": 1}, "words for sentence 1 after 0"),
        ({**WORDS, "words": "Hi there"}, "without a words list"),
        ({**WORDS, "words": [{"text": "Hi", "start_ms": 5}]}, "needs text, start_ms and end_ms"),
        ({**WORDS, "words": [{"text": "Hi", "start_ms": -1, "end_ms": 5}]}, "needs text"),
        ({**WORDS, "words": [{"text": 1, "start_ms": 1, "end_ms": 5}]}, "needs text"),
        ({**WORDS, "words": ["Hi"]}, "must be an object"),
        ({**WORDS, "words": [*WORDS["words"][1:], *WORDS["words"][:1]]}, "overlap"),
    ],
)
def test_malformed_words_break_the_protocol(message, reason):
    decoder = FrameDecoder()
    decoder.control(START)
    with pytest.raises(TtsProtocolError, match=reason):
        decoder.control(message)


def test_words_before_any_sentence_break_the_protocol():
    with pytest.raises(TtsProtocolError, match="after None"):
        FrameDecoder().control(WORDS)


# ---- both transports, with the real model -------------------------------------------------


def summary(events: list) -> list:
    """Event kinds in order, audio frames merged per sentence."""
    out: list = []
    for event in events:
        if isinstance(event, TtsAudio):
            if out and out[-1][0] == "audio":
                out[-1] = ("audio", event.index, out[-1][2] + len(event.data))
                continue
            out.append(("audio", event.index, len(event.data)))
        elif isinstance(event, TtsWords):
            out.append(("words", event.index, tuple(w.text for w in event.words)))
        else:
            assert not isinstance(event, TtsFailure), event
            out.append((event.type, getattr(event, "index", None)))
    return out


async def websocket_events(url: str) -> list[TtsEvent]:
    """Every event of one session saying TEXT with word timestamps over the WebSocket."""
    session = await WebSocketTts(url).open_session(SessionOptions(word_timestamps=True))
    await session.send_text(TEXT)
    await session.close()
    events = [e async for e in session.events()]
    await session.aclose()
    return events


@pytest.mark.model
@pytest.mark.replayable
async def test_websocket_transport_passes_words_from_the_real_server(server):
    events = await websocket_events(server.ws)
    kinds = summary(events)
    assert kinds[:3] == [
        ("sentence_start", 0),
        ("words", 0, ("Hi,", "Dr.", "Smith:", "$5", "now.")),
        ("audio", 0, kinds[2][2]),
    ]
    assert kinds[-1] == ("session_end", None)
    words = next(e for e in events if isinstance(e, TtsWords)).words
    audio_ms = kinds[2][2] / 2 / 24
    assert 0 < words[0].start_ms < words[-1].end_ms <= audio_ms


async def sagemaker_parts(ws_url: str, text: str) -> list[ResponseStreamEvent]:
    """The real server's frames as SageMaker delivers them: text frames as UTF8 parts (split
    into PARTIAL pieces, as a large message may be), binary frames as BINARY parts."""
    parts: list[ResponseStreamEvent] = []
    async with connect(ws_url) as ws:
        await ws.send(json.dumps(SessionOptions(word_timestamps=True).start_message()))
        await ws.send(json.dumps({"type": "text", "text": text}))
        await ws.send(json.dumps({"type": "close"}))
        async for frame in ws:
            if isinstance(frame, bytes):
                parts.append(payload_part(frame, "BINARY", "COMPLETE"))
                continue
            data = frame.encode()
            half = len(data) // 2
            parts.append(payload_part(data[:half], "UTF8", "PARTIAL"))
            parts.append(payload_part(data[half:], "UTF8", "COMPLETE"))
    return parts


def payload_part(data: bytes, data_type: str, state: str) -> ResponseStreamEvent:
    return ResponseStreamEventPayloadPart(
        value=ResponsePayloadPart(bytes_=data, data_type=data_type, completion_state=state)
    )


async def replay(parts: list[ResponseStreamEvent]) -> AsyncIterator[ResponseStreamEvent]:
    for part in parts:
        yield part


@pytest.mark.model
@pytest.mark.replayable
async def test_sagemaker_transport_decodes_the_same_words_as_the_websocket_one(server):
    parts = await sagemaker_parts(server.ws, TEXT)
    via_sagemaker = [e async for e in decode_response_stream(replay(parts))]
    via_websocket = await websocket_events(server.ws)
    words = [e for e in via_sagemaker if isinstance(e, TtsWords)]
    assert words == [e for e in via_websocket if isinstance(e, TtsWords)]  # same model, same times
    assert summary(via_sagemaker) == summary(via_websocket)


class RecordingInputStream:
    """Stands in for the HTTP/2 request stream: records what the transport sends."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    async def send(self, event) -> None:
        self.sent.append(json.loads(event.value.bytes_))

    async def close(self) -> None:
        return None


class StubSageMakerClient:
    """Test double for the SDK client (AWS is not reachable): one real DuplexEventStream."""

    def __init__(self) -> None:
        self.input = RecordingInputStream()

    async def invoke_endpoint_with_bidirectional_stream(self, request):
        output = asyncio.get_running_loop().create_future()
        output.set_result((InvokeEndpointWithBidirectionalStreamOutput(), replay([])))
        return DuplexEventStream(input_stream=self.input, output_future=output)


async def test_sagemaker_session_asks_for_words_in_its_start_message():
    client = StubSageMakerClient()
    tts = SageMakerBidiTts("kokoro-endpoint", client=client)
    session = await tts.open_session(SessionOptions(word_timestamps=True))
    await session.aclose()
    assert client.input.sent == [
        {"type": "start", "format": "pcm", "sample_rate": 24000, "word_timestamps": True}
    ]

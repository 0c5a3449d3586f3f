"""The SageMaker bidirectional transport against the SDK's real request/response event types
(no network): DataType routing, PARTIAL parts, the JSON fallback, and stream errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from aws_sdk_sagemaker_runtime_http2.models import (
    InternalStreamFailure,
    InvokeEndpointWithBidirectionalStreamInput,
    InvokeEndpointWithBidirectionalStreamOutput,
    ModelError,
    ModelStreamError,
    RequestStreamEventPayloadPart,
    ResponsePayloadPart,
    ResponseStreamEvent,
    ResponseStreamEventInternalStreamFailure,
    ResponseStreamEventModelStreamError,
    ResponseStreamEventPayloadPart,
    ResponseStreamEventUnknown,
)
from kokoro_stream.events import SentenceStart, SessionEnd, SynthesisComplete, TtsAudio, TtsFailure
from kokoro_stream.sagemaker import SageMakerBidiTts, decode_response_stream, request_event
from smithy_core.aio.eventstream import DuplexEventStream

from voice_agent.events import AudioEvent
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.payload import Invocation
from voice_agent.pipeline import VoicePipeline

PCM_BRACE = b'{"' + bytes(range(100))  # valid PCM that starts like JSON


def part(data: bytes, data_type: str | None, state: str | None = "COMPLETE"):
    return ResponseStreamEventPayloadPart(
        value=ResponsePayloadPart(bytes_=data, data_type=data_type, completion_state=state)
    )


def ctl(msg: dict, data_type: str | None = "UTF8", state: str | None = "COMPLETE"):
    return part(json.dumps(msg).encode(), data_type, state)


async def aiter(items: list) -> AsyncIterator[ResponseStreamEvent]:
    for item in items:
        yield item


async def decode(items: list) -> list:
    return [e async for e in decode_response_stream(aiter(items))]


START = {"type": "sentence_start", "index": 0, "text": "Hi.", "format": "pcm"}
DONE = {"type": "synthesis_complete", "index": 0, "audio_bytes": 104}
END = {"type": "session_end", "sentences": 1, "audio_s": 0.1}
# What the decoder makes of them.
STARTED = SentenceStart(0, "Hi.", "pcm")
COMPLETED = SynthesisComplete(0, 104)
ENDED = SessionEnd(1, 0.1)


async def test_data_type_tells_control_from_audio() -> None:
    events = await decode(
        [ctl(START), part(PCM_BRACE, "BINARY"), part(b"\x00\x01", "BINARY"), ctl(DONE), ctl(END)]
    )
    assert events == [
        STARTED,
        TtsAudio(0, PCM_BRACE),
        TtsAudio(0, b"\x00\x01"),
        COMPLETED,
        ENDED,
    ]


async def test_without_data_type_the_whole_payload_json_rule_applies() -> None:
    events = await decode(
        [ctl(START, None), part(PCM_BRACE, None), part(b'{"type": "x"} tail', None), ctl(END, None)]
    )
    assert events == [
        STARTED,
        TtsAudio(0, PCM_BRACE),
        TtsAudio(0, b'{"type": "x"} tail'),
        ENDED,
    ]


async def test_partial_utf8_parts_are_joined_before_decoding() -> None:
    raw = json.dumps(START).encode()
    events = await decode(
        [
            part(raw[:7], "UTF8", "PARTIAL"),
            part(raw[7:20], "UTF8", "PARTIAL"),
            part(raw[20:], "UTF8", "COMPLETE"),
            part(PCM_BRACE, "BINARY", "PARTIAL"),
            ctl(END),
        ]
    )
    assert events == [STARTED, TtsAudio(0, PCM_BRACE), ENDED]


async def test_model_stream_error_becomes_a_clear_failure() -> None:
    err = ModelStreamError(message="container closed the stream", error_code="ModelError")
    events = await decode([ctl(START), ResponseStreamEventModelStreamError(value=err), ctl(END)])
    assert events[-1] == TtsFailure(
        "tts_model_stream_error",
        "SageMaker ModelStreamError (ModelError): container closed the stream",
    )
    assert len(events) == 2  # nothing after the failure


async def test_internal_stream_failure_becomes_a_clear_failure() -> None:
    err = InternalStreamFailure(message="stream reset")
    events = await decode([ResponseStreamEventInternalStreamFailure(value=err)])
    assert events == [
        TtsFailure("tts_internal_stream_failure", "SageMaker InternalStreamFailure: stream reset")
    ]


async def test_raised_service_errors_and_bad_streams_are_failures() -> None:
    async def raising() -> AsyncIterator[ResponseStreamEvent]:
        yield ctl(START)
        raise ModelError(message="model returned 500", original_status_code=500)

    events = [e async for e in decode_response_stream(raising())]
    assert events[-1] == TtsFailure("tts_service_error", "SageMaker ModelError: model returned 500")
    assert (await decode([part(b"x", "BINARY")]))[0].code == "tts_protocol"  # audio first
    assert (await decode([part(b"not json", "UTF8")]))[0].code == "tts_protocol"
    assert (await decode([ctl(START)]))[-1].code == "tts_disconnected"  # no session_end
    unknown = await decode([ResponseStreamEventUnknown(tag="NewThing"), ctl(END)])
    assert unknown == [ENDED]


def test_request_events_are_complete_utf8_payload_parts() -> None:
    event = request_event({"type": "text", "text": "こんにちは"})
    assert isinstance(event, RequestStreamEventPayloadPart)
    assert event.value.data_type == "UTF8" and event.value.completion_state == "COMPLETE"
    assert json.loads(event.value.bytes_.decode()) == {"type": "text", "text": "こんにちは"}


class RecordingPublisher:
    """Stands in for the HTTP/2 request stream (AWS is not reachable here)."""

    def __init__(self) -> None:
        self.sent: list[RequestStreamEventPayloadPart] = []
        self.closed = False

        self.ended = asyncio.Event()  # set once `close` or `cancel` went out

    async def send(self, event: RequestStreamEventPayloadPart) -> None:
        self.sent.append(event)
        if json.loads(event.value.bytes_)["type"] in ("close", "cancel"):
            self.ended.set()

    async def close(self) -> None:
        self.closed = True


class ScriptedReceiver:
    """Stands in for the response stream: real SDK events, released after `close` is sent."""

    def __init__(self, publisher: RecordingPublisher, events: list) -> None:
        self.publisher, self.events, self.closed = publisher, events, False

    async def receive(self):
        await self.publisher.ended.wait()
        return self.events.pop(0) if self.events else None

    async def close(self) -> None:
        self.closed = True

    def __aiter__(self):
        return self

    async def __anext__(self):
        event = await self.receive()
        if event is None:
            raise StopAsyncIteration
        return event


class StubSageMakerClient:
    """Test double for AsyncSageMakerRuntimeHTTP2Client returning a real DuplexEventStream."""

    def __init__(self, script: list) -> None:
        self.script = script
        self.calls: list[InvokeEndpointWithBidirectionalStreamInput] = []
        self.publishers: list[RecordingPublisher] = []

    async def invoke_endpoint_with_bidirectional_stream(self, input):
        self.calls.append(input)
        publisher = RecordingPublisher()
        self.publishers.append(publisher)
        future = asyncio.get_running_loop().create_future()
        future.set_result(
            (
                InvokeEndpointWithBidirectionalStreamOutput(),
                ScriptedReceiver(publisher, list(self.script)),
            )
        )
        return DuplexEventStream(input_stream=publisher, output_future=future)


async def test_pipeline_over_sagemaker_transport_reuses_one_client() -> None:
    script = [ctl(START), part(PCM_BRACE, "BINARY"), ctl(DONE), ctl(END)]
    client = StubSageMakerClient(script)
    tts = SageMakerBidiTts("kokoro-endpoint", client=client)
    pipeline = VoicePipeline(ReplayedAnswerSource("Hi. Bye.", 500), tts)
    for _ in range(2):
        events = [e async for e in pipeline.run(Invocation(prompt="x"))]
        assert [e.data for e in events if isinstance(e, AudioEvent)] == [PCM_BRACE]
        last = events[-1]
        assert isinstance(last, dict) and last["type"] == "done"
    assert [c.endpoint_name for c in client.calls] == ["kokoro-endpoint"] * 2
    assert tts._client is client  # one long-lived client for every session
    sent = [json.loads(e.value.bytes_) for e in client.publishers[0].sent]
    # The agent always asks for word timestamps (v1.1): its conversations remember by them.
    start = {"type": "start", "format": "pcm", "sample_rate": 24000, "word_timestamps": True}
    assert sent[0] == start
    assert sent[-1] == {"type": "close"}
    await pipeline.drain()  # connections are closed in the background after each run
    assert all(p.closed for p in client.publishers)


async def test_sagemaker_stream_error_reaches_the_caller_as_an_error_event() -> None:
    err = ModelStreamError(message="boom", error_code="ModelStreamError")
    client = StubSageMakerClient([ctl(START), ResponseStreamEventModelStreamError(value=err)])
    pipeline = VoicePipeline(
        ReplayedAnswerSource("Hi.", 500), SageMakerBidiTts("ep", client=client)
    )
    events = [e async for e in pipeline.run(Invocation(prompt="x"))]
    assert events[-1] == {
        "type": "error",
        "code": "tts_model_stream_error",
        "message": "SageMaker ModelStreamError (ModelStreamError): boom",
        "fatal": True,
    }


async def test_real_sdk_client_is_built_once_with_the_crt_transport(monkeypatch) -> None:
    from aws_sdk_sagemaker_runtime_http2.client import AsyncSageMakerRuntimeHTTP2Client
    from smithy_http.aio.crt import AWSCRTHTTPClient

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    tts = SageMakerBidiTts("kokoro-endpoint", region="us-east-1")
    clients = await asyncio.gather(*(tts._get_client() for _ in range(3)))
    assert all(c is clients[0] for c in clients)  # one long-lived client, even when racing
    assert isinstance(clients[0], AsyncSageMakerRuntimeHTTP2Client)
    config = clients[0]._config
    assert isinstance(config.transport, AWSCRTHTTPClient)  # aiohttp cannot do duplex
    assert config.region == "us-east-1"
    await tts.aclose()
    assert tts._client is None

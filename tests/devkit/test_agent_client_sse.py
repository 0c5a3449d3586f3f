"""SSE events are reassembled across network chunks split at every possible byte boundary,
both by the boto3 runtime reader (SSEParser over a real botocore StreamingBody) and by the
httpx-sse path used for local HTTP."""

from __future__ import annotations

import base64
import io
import json

import boto3
import httpx
from botocore.response import StreamingBody
from botocore.stub import Stubber

from devkit.agent_client import invoke_http, invoke_runtime, read_runtime_stream
from devkit.sse import SSEParser
from voice_agent.events import (
    AgentEvent,
    AudioEvent,
    done_event,
    sentence_event,
    text_event,
    to_sse,
)

PCM = b"{" + bytes(range(200))
EVENTS: list[AgentEvent] = [
    text_event("こんにちは、"),  # multi-byte UTF-8 gets split mid-character
    text_event("line one\nline two"),
    sentence_event(0, "Déjà vu: 3.14 € ✓", 0.0),
    AudioEvent(0, "pcm", 24000, PCM),
    done_event({"time_to_first_audio_ms": 12.5, "audio_bytes": len(PCM)}),
]
WIRE = b"".join(to_sse(e) for e in EVENTS)
# The same events with CRLF line ends, a comment and a multi-line data field.
CRLF_WIRE = (
    b": keep-alive\r\n\r\n"
    + b'data: {"type": "text",\r\ndata:  "delta": "a"}\r\n\r\n'
    + WIRE.replace(b"\n", b"\r\n")
)
EXPECTED_TYPES = ["text", "text", "sentence", "audio", "done"]


def parse_chunks(chunks: list[bytes]) -> list[dict]:
    parser = SSEParser()
    return [json.loads(d) for chunk in chunks for d in parser.feed(chunk)]


def test_parser_reassembles_at_every_split_point() -> None:
    whole = parse_chunks([WIRE])
    assert [e["type"] for e in whole] == EXPECTED_TYPES
    assert base64.b64decode(whole[3]["data"]) == PCM
    for cut in range(len(WIRE) + 1):
        assert parse_chunks([WIRE[:cut], WIRE[cut:]]) == whole, cut


def test_parser_handles_crlf_split_between_cr_and_lf_and_comments() -> None:
    expected = [{"type": "text", "delta": "a"}, *parse_chunks([WIRE])]
    for cut in range(len(CRLF_WIRE) + 1):
        assert parse_chunks([CRLF_WIRE[:cut], CRLF_WIRE[cut:]]) == expected, cut
    assert parse_chunks([bytes([b]) for b in CRLF_WIRE]) == expected


def test_runtime_reader_over_streaming_body_at_every_chunk_size() -> None:
    for size in range(1, len(WIRE) + 1):
        body = StreamingBody(io.BytesIO(WIRE), len(WIRE))
        result = read_runtime_stream(body.iter_chunks(chunk_size=size), "stream")
        assert result.order == EXPECTED_TYPES, size
        assert result.pcm() == PCM and result.text == "こんにちは、line one\nline two"


def test_invoke_runtime_sends_the_payload_and_reads_the_sse_body() -> None:
    client = boto3.client(
        "bedrock-agentcore",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/voice-abc"
    payload = {"prompt": "hi", "mode": "batch"}
    with Stubber(client) as stub:
        stub.add_response(
            "invoke_agent_runtime",
            {
                "response": StreamingBody(io.BytesIO(WIRE), len(WIRE)),
                "contentType": "text/event-stream",
                "statusCode": 200,
                "runtimeSessionId": "s" * 40,
            },
            {
                "agentRuntimeArn": arn,
                "runtimeSessionId": "s" * 40,
                "payload": json.dumps(payload).encode(),
                "contentType": "application/json",
                "accept": "text/event-stream",
            },
        )
        result = invoke_runtime(arn, payload, session_id="s" * 40, client=client)
    assert result.order == EXPECTED_TYPES and result.pcm() == PCM
    assert result.metrics["audio_bytes"] == len(PCM)


class ChunkedStream(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk


async def test_httpx_sse_path_reassembles_at_every_split_point() -> None:
    for cut in range(len(WIRE) + 1):
        chunks = [WIRE[:cut], WIRE[cut:]]

        def handler(request: httpx.Request, chunks: list[bytes] = chunks) -> httpx.Response:
            assert json.loads(request.content) == {"prompt": "hi"}
            return httpx.Response(
                200,
                headers={"content-type": "text/event-stream"},
                stream=ChunkedStream(chunks),
            )

        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            result = await invoke_http("http://agent", {"prompt": "hi"}, client=client)
        assert result.order == EXPECTED_TYPES, cut
        assert result.pcm() == PCM, cut

"""The TTS client of the demo and the benchmarks, with timings.

Streams go through the agent's own transports (`kokoro_stream`: WebSocket to a container,
or SageMaker's bidirectional stream), so there is one protocol reader on the client side and
a deployed-endpoint number measures the production client. One-shot synthesis (the batch
baseline) is POST /invocations, or InvokeEndpoint on SageMaker.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kokoro_stream import events
from kokoro_stream.base import ProtocolMessages, TtsTransport
from kokoro_stream.messages import DEFAULT_SAMPLE_RATE
from kokoro_stream.websocket import WebSocketTts

from devkit.text import deltas_at

WS_PATH = "/invocations-bidirectional-stream"


def ws_url(base_url: str) -> str:
    """The container's bidirectional route for a server at base_url (http://host:port)."""
    return base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + WS_PATH


def websocket_transport(base_url: str) -> WebSocketTts:
    return WebSocketTts(ws_url(base_url))


class TransportStreamError(RuntimeError):
    """The transport reported a failure (connection lost, stream error) mid-session."""


@dataclass
class SentenceAudio:
    index: int
    text: str
    format: str
    sample_rate: int
    audio: bytearray = field(default_factory=bytearray)
    frame_sizes: list[int] = field(default_factory=list)  # bytes of each binary frame
    first_byte_s: float | None = None  # seconds since the first delta was sent
    complete: dict[str, Any] = field(default_factory=dict)


@dataclass
class StreamResult:
    sentences: list[SentenceAudio] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)  # each with `at_s`
    first_audio_s: float | None = None
    total_s: float = 0.0

    @property
    def audio(self) -> bytes:
        return b"".join(bytes(s.audio) for s in self.sentences)

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [c for c in self.controls if c.get("type") == events.ServerError.type]


async def stream_session(
    transport: TtsTransport,
    deltas: Sequence[str],
    *,
    tokens_per_s: float | None = None,
    voice: str | None = None,
    audio_format: str = "pcm",
    sample_rate: int = DEFAULT_SAMPLE_RATE,
    frame_ms: int | None = None,
    timeout_s: float = 300.0,
) -> StreamResult:
    """One session: send `deltas` (paced at tokens_per_s if given), close, collect the audio.

    Times count from the first delta sent, so opening the session is not time to first audio.
    """
    options = events.SessionOptions(voice=voice, audio_format=audio_format, sample_rate=sample_rate)
    session = await transport.open_session(options)
    if frame_ms is not None:  # telephony framing: no agent asks for it, so no open_session field
        if not isinstance(session, ProtocolMessages):
            raise TransportStreamError(f"{transport.name} cannot set frame_ms")
        await session.update_defaults(frame_ms=frame_ms)
    result = StreamResult()
    t0 = time.perf_counter()

    async def send_all() -> None:
        nonlocal t0
        first = True
        async for delta in deltas_at(deltas, tokens_per_s):
            if first:
                t0, first = time.perf_counter(), False
            await session.send_text(delta)
        await session.close()

    async def receive_all() -> None:
        current: SentenceAudio | None = None
        async for event in session.events():
            now = time.perf_counter() - t0
            if isinstance(event, events.TtsFailure):
                raise TransportStreamError(f"{event.code}: {event.message}")
            if isinstance(event, events.TtsAudio):
                if current is None or current.index != event.index:
                    raise TransportStreamError(f"audio of sentence {event.index} out of order")
                if current.first_byte_s is None:
                    current.first_byte_s = now
                if result.first_audio_s is None:
                    result.first_audio_s = now
                current.audio.extend(event.data)
                current.frame_sizes.append(len(event.data))
                continue
            msg = {**event.raw, "at_s": round(now, 4)}
            result.controls.append(msg)
            if isinstance(event, events.SentenceStart):
                current = SentenceAudio(
                    event.index,
                    event.text,
                    event.format or audio_format,
                    event.sample_rate or sample_rate,
                )
                result.sentences.append(current)
            elif isinstance(event, events.SynthesisComplete) and current is not None:
                current.complete = msg
            elif isinstance(event, events.SessionEnd):
                return

    try:
        await asyncio.wait_for(asyncio.gather(send_all(), receive_all()), timeout_s)
    finally:
        await session.aclose()
    result.total_s = time.perf_counter() - t0
    return result


@dataclass
class OneShotResult:
    """POST /invocations: the non-streaming baseline. Audio arrives only when all is done."""

    audio: bytes
    content_type: str
    headers: dict[str, str]
    first_byte_s: float  # seconds from sending the request to the first body byte
    total_s: float


async def synthesize_once(
    base_url: str, text: str, *, timeout_s: float = 300.0, **options: Any
) -> OneShotResult:
    """One-shot synthesis of `text` (options: voice, speed, format, sample_rate)."""
    import httpx  # only this call needs it

    body = {"text": text, **options}
    async with httpx.AsyncClient(timeout=timeout_s) as client:
        t0 = time.perf_counter()
        async with client.stream("POST", f"{base_url}/invocations", json=body) as response:
            first: float | None = None
            chunks = bytearray()
            async for chunk in response.aiter_bytes():
                if first is None and chunk:
                    first = time.perf_counter() - t0
                chunks.extend(chunk)
            total = time.perf_counter() - t0
            if response.status_code != 200:
                raise RuntimeError(
                    f"POST /invocations answered {response.status_code}: {chunks.decode()[:300]}"
                )
    return OneShotResult(
        bytes(chunks),
        response.headers.get("content-type", ""),
        dict(response.headers),
        first if first is not None else total,
        total,
    )


def invoke_endpoint_once(
    endpoint_name: str, region: str | None, text: str, **options: Any
) -> OneShotResult:
    """The batch baseline on SageMaker: InvokeEndpoint (POST /invocations), body when all done."""
    import boto3

    client = boto3.client("sagemaker-runtime", region_name=region)
    body = json.dumps({"text": text, **options}).encode("utf-8")
    t0 = time.perf_counter()
    response = client.invoke_endpoint(
        EndpointName=endpoint_name, Body=body, ContentType="application/json"
    )
    stream = response["Body"]
    first = stream.read(1)
    first_s = time.perf_counter() - t0
    audio = first + stream.read()
    total = time.perf_counter() - t0
    headers = {
        k.lower(): v for k, v in response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).items()
    }
    return OneShotResult(audio, response.get("ContentType", ""), headers, first_s, total)

"""TTS over SageMaker InvokeEndpointWithBidirectionalStream (HTTP/2, awscrt transport).

One client is created lazily and reused for every session (connection pooling, credential
caching). Request frames are UTF8 payload parts; response parts are told apart by DataType
(UTF8 = control JSON, BINARY = audio) with the whole-payload-JSON rule as the fallback.
Parts marked PARTIAL are joined until COMPLETE before a control message is decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from aws_sdk_sagemaker_runtime_http2.models import (
    InvokeEndpointWithBidirectionalStreamInput,
    RequestPayloadPart,
    RequestStreamEventPayloadPart,
    ResponseStreamEvent,
    ResponseStreamEventInternalStreamFailure,
    ResponseStreamEventModelStreamError,
    ResponseStreamEventPayloadPart,
    ServiceError,
)

from .base import FrameDecoder, ProtocolMessages, TtsEvent, TtsFailure, TtsProtocolError
from .classify import BINARY, UTF8, ControlDecodeError, classify

PARTIAL = "PARTIAL"


def request_event(message: dict[str, Any]) -> RequestStreamEventPayloadPart:
    """One protocol message as a complete UTF8 payload part."""
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return RequestStreamEventPayloadPart(
        value=RequestPayloadPart(bytes_=data, data_type=UTF8, completion_state="COMPLETE")
    )


async def decode_response_stream(
    events: AsyncIterable[ResponseStreamEvent],
) -> AsyncIterator[TtsEvent]:
    """Map SageMaker response events to TTS events; stream errors become TtsFailure."""
    decoder = FrameDecoder()
    pending_text = bytearray()  # a UTF8 message split over PARTIAL parts
    try:
        async for event in events:
            match event:
                case ResponseStreamEventPayloadPart(value=part):
                    payload = part.bytes_ or b""
                    if part.data_type == BINARY:
                        if payload:
                            yield decoder.audio(payload)
                        continue
                    if part.data_type == UTF8 and part.completion_state == PARTIAL:
                        pending_text.extend(payload)
                        continue
                    if pending_text:
                        payload = bytes(pending_text) + payload
                        pending_text.clear()
                    item = classify(payload, part.data_type)
                    if isinstance(item, bytes):
                        if item:
                            yield decoder.audio(item)
                        continue
                    control = decoder.control(item)
                    yield control
                    if control.type == "session_end":
                        return
                case ResponseStreamEventModelStreamError(value=err):
                    yield TtsFailure(
                        "tts_model_stream_error",
                        f"SageMaker ModelStreamError ({err.error_code or 'no code'}): "
                        f"{err.message or 'the model container failed mid-stream'}",
                    )
                    return
                case ResponseStreamEventInternalStreamFailure(value=err):
                    yield TtsFailure(
                        "tts_internal_stream_failure",
                        "SageMaker InternalStreamFailure: "
                        f"{err.message or 'the stream failed inside SageMaker'}",
                    )
                    return
                case _:
                    # Unknown union member from a newer service model: skip, don't crash.
                    continue
    except (TtsProtocolError, ControlDecodeError) as exc:
        yield TtsFailure("tts_protocol", str(exc))
        return
    except ServiceError as exc:
        yield TtsFailure(
            "tts_service_error", f"SageMaker {type(exc).__name__}: {exc.message or exc}"
        )
        return
    yield TtsFailure("tts_disconnected", "SageMaker stream ended before session_end")


class SageMakerTtsSession(ProtocolMessages):
    def __init__(self, stream: Any) -> None:
        # `stream` is the SDK's DuplexEventStream.
        self._stream = stream
        self._closed = False

    async def _send(self, message: dict[str, Any]) -> None:
        await self._stream.input_stream.send(request_event(message))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            await self._stream.input_stream.close()
        receiver = getattr(self._stream, "output_stream", None)
        if receiver is not None:
            with contextlib.suppress(Exception):
                await receiver.close()

    async def _receiver(self) -> AsyncIterator[ResponseStreamEvent]:
        _, receiver = await self._stream.await_output()
        async for event in receiver:
            yield event

    def events(self) -> AsyncIterator[TtsEvent]:
        return decode_response_stream(self._receiver())


class SageMakerBidiTts:
    """Bidirectional streams to one SageMaker endpoint through one long-lived client."""

    name = "sagemaker"

    def __init__(self, endpoint_name: str, region: str | None = None, client: Any = None):
        if not endpoint_name:
            raise ValueError("TTS_ENDPOINT_NAME is empty")
        self.endpoint_name = endpoint_name
        self.region = region
        self._client = client
        self._client_lock = asyncio.Lock()  # concurrent first invocations share one client

    async def _get_client(self) -> Any:
        async with self._client_lock:
            return await self._create_client_once()

    async def _create_client_once(self) -> Any:
        if self._client is None:
            # Imported here: the CRT transport is only needed when talking to AWS.
            from aws_sdk_sagemaker_runtime_http2.client import AsyncSageMakerRuntimeHTTP2Client
            from aws_sdk_sagemaker_runtime_http2.config import AsyncSageMakerRuntimeHTTP2Config
            from smithy_http.aio.crt import AWSCRTHTTPClient

            # aiohttp (the SDK default) cannot do duplex streams; awscrt can.
            config = await AsyncSageMakerRuntimeHTTP2Config.resolve(
                region=self.region, transport=AWSCRTHTTPClient()
            )
            self._client = AsyncSageMakerRuntimeHTTP2Client(config=config)
        return self._client

    async def open_session(
        self, voice: str | None, audio_format: str, sample_rate: int, word_timestamps: bool = False
    ) -> SageMakerTtsSession:
        client = await self._get_client()
        stream = await client.invoke_endpoint_with_bidirectional_stream(
            InvokeEndpointWithBidirectionalStreamInput(endpoint_name=self.endpoint_name)
        )
        session = SageMakerTtsSession(stream)
        try:
            await session.start(voice, audio_format, sample_rate, word_timestamps)
        except BaseException:
            await session.aclose()
            raise
        return session

    async def aclose(self) -> None:
        client, self._client = self._client, None
        close = getattr(client, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()

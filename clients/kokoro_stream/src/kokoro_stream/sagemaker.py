"""TTS over SageMaker InvokeEndpointWithBidirectionalStream (HTTP/2, awscrt transport).

One client, built by `sagemaker_client.build_sagemaker_client` (port 8443, botocore's
credential chain, awscrt), is created lazily and reused for every session. Each stream is
signed with one key, resolved before the request: a credential failure is reported at once,
and a refresh never changes the key inside a stream's event signature chain.

Request frames are UTF8 payload parts; response parts are told apart by DataType (UTF8 =
control JSON, BINARY = audio) with the whole-payload-JSON rule as the fallback. Parts marked
PARTIAL are joined until COMPLETE before a control message is decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterable
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
from smithy_http.aio.interfaces import HTTPClient

from .aws_credentials import BotocoreCredentialsResolver, signing_as
from .base import FrameDecoder, ProtocolMessages, TtsConnectionLost
from .classify import BINARY, UTF8, ControlDecodeError, classify
from .errors import describe_error
from .events import SessionEnd, SessionOptions, TtsEvent, TtsFailure, TtsProtocolError
from .region import NO_REGION, region_from_env
from .sagemaker_client import (
    SdkCall,
    SdkCallError,
    build_sagemaker_client,
    retrieve_exception,
)
from .voices import LIST_VOICES_BODY, VoiceList

PARTIAL = "PARTIAL"
log = logging.getLogger(__name__)


def request_event(message: dict[str, Any]) -> RequestStreamEventPayloadPart:
    """One protocol message as a complete UTF8 payload part."""
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return RequestStreamEventPayloadPart(
        value=RequestPayloadPart(bytes_=data, data_type=UTF8, completion_state="COMPLETE")
    )


async def decode_response_stream(
    events: AsyncIterable[ResponseStreamEvent],
) -> AsyncGenerator[TtsEvent, None]:
    """Map SageMaker response events to TTS events; stream errors become TtsFailure."""
    decoder = FrameDecoder()
    pending_text = bytearray()  # a UTF8 message split over PARTIAL parts
    try:
        async for event in events:
            match event:
                case ResponseStreamEventPayloadPart(value=part):
                    item = _payload_event(part, pending_text, decoder)
                    if item is not None:
                        yield item
                        if isinstance(item, SessionEnd):
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
        yield _service_failure(exc)
        return
    except Exception as exc:
        log.error("SageMaker stream failed: %s", describe_error(exc), exc_info=exc)
        yield TtsFailure("tts_disconnected", f"SageMaker stream failed: {describe_error(exc)}")
        return
    yield TtsFailure("tts_disconnected", "SageMaker stream ended before session_end")


def _payload_event(part: Any, pending_text: bytearray, decoder: FrameDecoder) -> TtsEvent | None:
    """The event one payload part completes; None for a PARTIAL piece or an empty part."""
    payload = part.bytes_ or b""
    if part.data_type == BINARY:
        return decoder.audio(payload) if payload else None
    if part.data_type == UTF8 and part.completion_state == PARTIAL:
        pending_text.extend(payload)
        return None
    if pending_text:
        payload = bytes(pending_text) + payload
        pending_text.clear()
    item = classify(payload, part.data_type)
    if isinstance(item, bytes):
        return decoder.audio(item) if item else None
    return decoder.control(item)


def _service_failure(exc: ServiceError) -> TtsFailure:
    return TtsFailure("tts_service_error", f"SageMaker {type(exc).__name__}: {exc.message or exc}")


class SageMakerTtsSession(ProtocolMessages):
    def __init__(self, stream: Any, identity: Any = None) -> None:
        # `stream` is the SDK's DuplexEventStream; `identity` signs every event of it.
        self._stream = stream
        self._identity = identity
        self._closed = False
        # Started now, so the SDK's request failure is seen by `_send` and `events` alike;
        # marked retrieved, so a session closed without reading it logs no asyncio error.
        self._output: asyncio.Future[Any] = asyncio.ensure_future(stream.await_output())
        self._output.add_done_callback(retrieve_exception)

    def _request_error(self) -> BaseException | None:
        """The SDK's error once its request failed (nothing sent after that is read)."""
        if not self._output.done():
            return None
        if self._output.cancelled():
            return asyncio.CancelledError("the SageMaker request was cancelled")
        return self._output.exception()

    async def _send(self, message: dict[str, Any]) -> None:
        if (error := self._request_error()) is not None:
            # The request body is no longer read: fail now rather than block on a full buffer.
            raise TtsConnectionLost(f"SageMaker stream did not open: {describe_error(error)}")
        try:
            with signing_as(self._identity):
                await self._stream.input_stream.send(request_event(message))
        except Exception as exc:
            raise TtsConnectionLost(f"SageMaker send failed: {describe_error(exc)}") from exc

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        # A graceful close flushes the request body, which waits forever once the request
        # has failed and nobody reads it: stop waiting as soon as the request fails.
        closing = asyncio.ensure_future(self._close_request_stream())
        if not self._output.done():
            await asyncio.wait({closing, self._output}, return_when=asyncio.FIRST_COMPLETED)
        if self._request_error() is not None:
            closing.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await closing
        # The response is not cancelled: the SDK ends it once the request stream is closed.
        receiver = getattr(self._stream, "output_stream", None)
        if receiver is not None:
            with contextlib.suppress(Exception):
                await receiver.close()

    async def _close_request_stream(self) -> None:
        with signing_as(self._identity):
            await self._stream.input_stream.close()

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        try:
            _, receiver = await self._output
        except ServiceError as exc:
            yield _service_failure(exc)
            return
        except Exception as exc:
            # The request itself failed (TLS, DNS, connection): the stream never opened.
            log.error("SageMaker stream did not open: %s", describe_error(exc), exc_info=exc)
            yield TtsFailure(
                "tts_unavailable", f"SageMaker stream did not open: {describe_error(exc)}"
            )
            return
        async for event in decode_response_stream(receiver):
            yield event


def _profile_region() -> str | None:
    from botocore.session import Session

    return Session().get_config_variable("region") or None


class SageMakerBidiTts:
    """Bidirectional streams to one SageMaker endpoint through one long-lived client."""

    name = "sagemaker"

    def __init__(
        self,
        endpoint_name: str,
        region: str | None = None,
        client: Any = None,
        *,
        transport: HTTPClient | None = None,
        runtime: Any = None,
    ):
        """`region` defaults to AWS_REGION, then AWS_DEFAULT_REGION, then the AWS profile's
        (for tools; the agent always passes its own). Test seams: `client` replaces the SDK
        client (for stream payloads), `transport` only its HTTP transport, `runtime` the
        botocore `sagemaker-runtime` client of `list_voices`."""
        if not endpoint_name:
            raise ValueError("TTS_ENDPOINT_NAME is empty")
        region = region or region_from_env() or _profile_region()
        if client is None and not region:
            raise ValueError(f"SageMaker endpoint {endpoint_name!r}: {NO_REGION}")
        self.endpoint_name = endpoint_name
        self.region = region
        self._client = client
        self._transport = transport
        self._runtime = runtime
        # None with an injected client, which signs for itself.
        self._credentials = BotocoreCredentialsResolver(region) if client is None else None
        self._client_lock = asyncio.Lock()  # concurrent first invocations share one client

    @property
    def description(self) -> str:
        """This target as errors and logs name it (the integrations' `description`)."""
        return f"SageMaker endpoint {self.endpoint_name} ({self.region})"

    async def _get_client(self) -> Any:
        async with self._client_lock:
            if self._client is None:
                assert self.region is not None
                self._client = await build_sagemaker_client(
                    self.region, credentials=self._credentials, transport=self._transport
                )
            return self._client

    async def _signing_identity(self) -> Any:
        """The key this stream is signed with, resolved first so a credential failure is
        reported here, with botocore's error as the cause."""
        if self._credentials is None:
            return None
        try:
            return await self._credentials.get_identity(properties={})
        except Exception as exc:
            log.error("AWS credentials for SageMaker: %s", describe_error(exc), exc_info=exc)
            raise SdkCallError(describe_error(exc)) from exc

    async def open_session(self, options: SessionOptions) -> SageMakerTtsSession:
        client = await self._get_client()
        identity = await self._signing_identity()
        request = InvokeEndpointWithBidirectionalStreamInput(endpoint_name=self.endpoint_name)
        with signing_as(identity):
            try:
                stream = await SdkCall().start(
                    lambda: client.invoke_endpoint_with_bidirectional_stream(request)
                )
            except SdkCallError as exc:
                log.error("SageMaker request failed: %s", exc, exc_info=exc.__cause__)
                raise
        return await SageMakerTtsSession(stream, identity).started(options)

    async def list_voices(self) -> VoiceList:
        """The server's voice list through InvokeEndpoint (only /invocations is reachable on
        SageMaker): the body `{"list": "voices"}` answers what `GET /voices` would."""

        def invoke() -> Any:
            response = self._runtime_client().invoke_endpoint(
                EndpointName=self.endpoint_name,
                ContentType="application/json",
                Accept="application/json",
                Body=json.dumps(LIST_VOICES_BODY).encode("utf-8"),
            )
            return json.loads(response["Body"].read())

        return VoiceList.from_json(await asyncio.to_thread(invoke))

    def _runtime_client(self) -> Any:
        """botocore's `sagemaker-runtime` client (InvokeEndpoint), built once, on the same
        credential chain; it honours AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME like any botocore
        client."""
        if self._runtime is None:
            from botocore.session import Session

            self._runtime = Session().create_client("sagemaker-runtime", region_name=self.region)
        return self._runtime

    async def aclose(self) -> None:
        client, self._client = self._client, None
        close = getattr(client, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()

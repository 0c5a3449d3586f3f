"""Sessions over SageMaker's InvokeEndpointWithBidirectionalStream (HTTP/2, awscrt).

How the client is built (tests/integrations/pipecat/test_sagemaker_contract.py checks it
against the SDK's own endpoint rules and SigV4, through a recording HTTP transport):

- Endpoint `https://runtime.sagemaker.{region}.{dnsSuffix}:8443`: the bidirectional API is
  served on port 8443, which the SDK's default resolver drops.
- Credentials: botocore's chain (`aws_credentials`), not the SDK's, which has no container or
  instance metadata provider.
- Transport: awscrt (the SDK's default aiohttp transport cannot do duplex streams).
- Failures: the SDK runs each request in a background task; if that fails before the stream
  is handed back (credentials, DNS, TLS), its caller would wait forever and the error only
  reach the log at garbage collection. `_start_call` reports it at once.

Pipecat's own `SageMakerBidiClient` is not used: pipecat-ai 1.14 imports SDK names that
aws-sdk-sagemaker-runtime-http2 0.10 removed (this project pins 0.12), and it signs with
environment credentials only.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aws_sdk_sagemaker_runtime_http2.client import AsyncSageMakerRuntimeHTTP2Client
from aws_sdk_sagemaker_runtime_http2.config import AsyncSageMakerRuntimeHTTP2Config
from aws_sdk_sagemaker_runtime_http2.models import (
    InvokeEndpointWithBidirectionalStreamInput,
    RequestPayloadPart,
    RequestStreamEventPayloadPart,
    ResponseStreamEventInternalStreamFailure,
    ResponseStreamEventModelStreamError,
    ResponseStreamEventPayloadPart,
)
from botocore.loaders import create_loader
from smithy_core.interceptors import Interceptor, OutputContext
from smithy_http.aio.interfaces import HTTPClient

from . import protocol
from .aws_credentials import BotocoreCredentialsResolver, signing_as
from .connection import ConnectionLost
from .protocol import Audio, ProtocolViolation, ServerMessage

BIDI_PORT = 8443  # from the service's endpoint rules (the SDK ships them)
UTF8, BINARY, PARTIAL = "UTF8", "BINARY", "PARTIAL"


def dns_suffix(region: str) -> str:
    """The region's partition DNS suffix as the endpoint rules' `aws.partition` finds it:
    listed regions, then each partition's region pattern, else `aws` (botocore's data)."""
    partitions = create_loader().load_data("partitions")["partitions"]
    for partition in partitions:
        if region in partition["regions"]:
            return str(partition["outputs"]["dnsSuffix"])
    for partition in partitions:
        if re.match(partition["regionRegex"], region):
            return str(partition["outputs"]["dnsSuffix"])
    return str(next(p for p in partitions if p["id"] == "aws")["outputs"]["dnsSuffix"])


def bidi_endpoint_uri(region: str) -> str:
    return f"https://runtime.sagemaker.{region}.{dns_suffix(region)}:{BIDI_PORT}"


def default_region() -> str | None:
    """AWS_REGION, then AWS_DEFAULT_REGION, then the profile's (botocore reads only the
    last two)."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if os.environ.get(name):
            return os.environ[name]
    from botocore.session import Session

    return Session().get_config_variable("region") or None


def _crt_transport() -> HTTPClient:
    from smithy_http.aio.crt import AWSCRTHTTPClient

    return AWSCRTHTTPClient()


async def build_client(
    region: str,
    *,
    credentials: BotocoreCredentialsResolver,
    transport: HTTPClient | None = None,
) -> AsyncSageMakerRuntimeHTTP2Client:
    """The production client. Tests pass a recording `transport`; nothing else differs."""
    config = await AsyncSageMakerRuntimeHTTP2Config.resolve(
        region=region,
        endpoint_uri=bidi_endpoint_uri(region),
        aws_credentials_identity_resolver=credentials,
        transport=transport or _crt_transport(),
        interceptors=[_ReportFailures()],
    )
    return AsyncSageMakerRuntimeHTTP2Client(config=config)


def describe_error(exc: BaseException) -> str:
    """`Type: message`, then each cause (the SDK wraps transport errors)."""
    parts = [f"{type(exc).__name__}: {exc}"]
    seen = {id(exc)}
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen and len(parts) < 5:
        parts.append(f"caused by {type(cause).__name__}: {cause}")
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return "; ".join(parts)


def _retrieve(task: asyncio.Future[Any]) -> None:
    # Reported another way; keeps asyncio from logging "exception was never retrieved".
    if not task.cancelled():
        task.exception()


_FAILURE: contextvars.ContextVar[asyncio.Future[Exception] | None] = contextvars.ContextVar(
    "kokoro_sdk_failure", default=None
)


class _ReportFailures(Interceptor[Any, Any, Any, Any]):
    """Runs in the SDK's request task: hands a failed execution to the call that started it."""

    def read_after_execution(self, context: OutputContext[Any, Any, Any, Any]) -> None:
        failure = _FAILURE.get()
        if isinstance(context.response, Exception) and failure and not failure.done():
            failure.set_result(context.response)
            task = asyncio.current_task()
            if task is not None:
                task.add_done_callback(_retrieve)


async def _start_call[T](operation: Callable[[], Awaitable[T]]) -> T:
    """The operation's result, or ConnectionLost the moment the SDK's own task fails."""
    failure: asyncio.Future[Exception] = asyncio.get_running_loop().create_future()
    context = contextvars.copy_context()
    context.run(_FAILURE.set, failure)

    async def run() -> T:
        return await operation()

    task = asyncio.create_task(run(), context=context)
    try:
        await asyncio.wait({task, failure}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if failure.done() and not (task.done() and not task.cancelled()):
        exc = failure.result()
        raise ConnectionLost(f"SageMaker request failed: {describe_error(exc)}") from exc
    return task.result()


def _request_event(message: dict[str, Any]) -> RequestStreamEventPayloadPart:
    return RequestStreamEventPayloadPart(
        value=RequestPayloadPart(
            bytes_=protocol.encode(message), data_type=UTF8, completion_state="COMPLETE"
        )
    )


class SageMakerConnection:
    """One bidirectional stream; every event is signed with the key of its request."""

    def __init__(self, stream: Any, identity: Any) -> None:
        self._stream = stream
        self._identity = identity
        self._closed = False
        self._output = asyncio.ensure_future(stream.await_output())
        self._output.add_done_callback(_retrieve)

    def _request_error(self) -> BaseException | None:
        if not self._output.done():
            return None
        if self._output.cancelled():
            return asyncio.CancelledError("the SageMaker request was cancelled")
        return self._output.exception()

    async def send(self, message: dict[str, Any]) -> None:
        if (error := self._request_error()) is not None:
            raise ConnectionLost(f"SageMaker stream is closed: {describe_error(error)}")
        try:
            with signing_as(self._identity):
                await self._stream.input_stream.send(_request_event(message))
        except Exception as exc:
            raise ConnectionLost(f"SageMaker send failed: {describe_error(exc)}") from exc

    async def messages(self) -> AsyncIterator[ServerMessage]:
        try:
            _, receiver = await self._output
        except Exception as exc:
            raise ConnectionLost(f"SageMaker stream did not open: {describe_error(exc)}") from exc
        pending = bytearray()  # a UTF8 message split over PARTIAL parts
        try:
            async for event in receiver:
                match event:
                    case ResponseStreamEventPayloadPart(value=part):
                        payload = part.bytes_ or b""
                        if part.data_type == BINARY:
                            if payload:
                                yield Audio(payload)
                        elif part.data_type == UTF8 and part.completion_state == PARTIAL:
                            pending.extend(payload)
                        elif part.data_type == UTF8:
                            whole, pending = bytes(pending) + payload, bytearray()
                            yield protocol.decode_text_frame(whole)
                        elif payload:
                            yield protocol.decode_untyped(payload)
                    case ResponseStreamEventModelStreamError(value=err):
                        raise ConnectionLost(
                            f"SageMaker ModelStreamError ({err.error_code or 'no code'}): "
                            f"{err.message or 'the model container failed mid-stream'}"
                        )
                    case ResponseStreamEventInternalStreamFailure(value=err):
                        raise ConnectionLost(
                            f"SageMaker InternalStreamFailure: {err.message or 'no message'}"
                        )
                    case _:
                        continue  # a union member from a newer service model
        except (ConnectionLost, ProtocolViolation):
            raise
        except Exception as exc:
            raise ConnectionLost(f"SageMaker stream failed: {describe_error(exc)}") from exc
        raise ConnectionLost("SageMaker stream ended")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Closing the request stream flushes it, which waits forever once the request failed
        # and nobody reads it: stop waiting as soon as the request fails.
        closing = asyncio.ensure_future(self._close_request_stream())
        if not self._output.done():
            await asyncio.wait({closing, self._output}, return_when=asyncio.FIRST_COMPLETED)
        if self._request_error() is not None:
            closing.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await closing
        receiver = getattr(self._stream, "output_stream", None)
        if receiver is not None:
            with contextlib.suppress(Exception):
                await receiver.close()

    async def _close_request_stream(self) -> None:
        with signing_as(self._identity):
            await self._stream.input_stream.close()


class SageMakerConnector:
    """Sessions on one SageMaker endpoint through one long-lived client."""

    def __init__(
        self,
        endpoint_name: str,
        region: str | None = None,
        *,
        transport: HTTPClient | None = None,
    ) -> None:
        """`transport` replaces only the client's HTTP transport (a test seam)."""
        if not endpoint_name:
            raise ValueError("a SageMaker endpoint name is required")
        region = region or default_region()
        if not region:
            raise ValueError(
                f"SageMaker endpoint {endpoint_name!r}: no region given, and none in "
                "AWS_REGION, AWS_DEFAULT_REGION or the AWS profile"
            )
        self.endpoint_name = endpoint_name
        self.region = region
        self.description = f"SageMaker endpoint {endpoint_name} ({region})"
        self.credentials = BotocoreCredentialsResolver(region)
        self._transport = transport
        self._client: AsyncSageMakerRuntimeHTTP2Client | None = None
        self._client_lock = asyncio.Lock()

    async def client(self) -> AsyncSageMakerRuntimeHTTP2Client:
        async with self._client_lock:
            if self._client is None:
                self._client = await build_client(
                    self.region, credentials=self.credentials, transport=self._transport
                )
            return self._client

    async def connect(self) -> SageMakerConnection:
        client = await self.client()
        try:
            # Resolved first: a credential failure is reported here, with botocore's cause.
            identity = await self.credentials.get_identity(properties={})
        except Exception as exc:
            raise ConnectionLost(f"AWS credentials: {describe_error(exc)}") from exc
        request = InvokeEndpointWithBidirectionalStreamInput(endpoint_name=self.endpoint_name)
        with signing_as(identity):
            stream = await _start_call(
                lambda: client.invoke_endpoint_with_bidirectional_stream(request)
            )
        return SageMakerConnection(stream, identity)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        close = getattr(client, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()

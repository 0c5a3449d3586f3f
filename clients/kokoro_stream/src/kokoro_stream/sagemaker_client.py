"""How the SageMaker HTTP/2 client is built and called (one builder, used by production).

- Endpoint: the bidirectional API is served on port 8443. The SDK's generated config uses
  `StandardRegionalEndpointsResolver`, which drops the port, while the service's own endpoint
  rules (the `smithy.rules#endpointBdd` trait shipped in
  `aws_sdk_sagemaker_runtime_http2/_private/schemas.py`) give
  `https://runtime.sagemaker.{Region}.{PartitionResult#dnsSuffix}:8443`. The builder sets
  that URI unless an endpoint was configured the SDK's standard way (AWS_ENDPOINT_URL_*);
  tests/agent/test_agent_sagemaker_contract.py evaluates the shipped rules and checks the
  two agree.
- Credentials: botocore's chain (`kokoro_stream.aws_credentials`), not the SDK's default one.
- Transport: awscrt (aiohttp, the SDK default from 0.10 on, cannot do duplex streams).
- SDK generations: pipecat-ai[sagemaker] caps the SDK below 0.10 (smithy 0.6-0.9) while
  livekit-agents[aws] needs smithy 0.11+ (so SDK 0.11+); both users install this client, so
  it builds either: 0.6-0.9 take a `Config(...)` built at once, 0.10+ resolve an
  `AsyncSageMakerRuntimeHTTP2Config` (which also reads the SDK's standard endpoint settings).
  The models, the stream and the identity interfaces are the same in both.
- Failures: the SDK runs each request in a background task; if it fails before the stream is
  handed back (credentials, endpoint, signing), the SDK's caller waits forever and the error
  is only logged at garbage collection. `SdkCall` reports it to the caller at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import re
from collections.abc import Awaitable, Callable
from typing import Any

import aws_sdk_sagemaker_runtime_http2.client as sdk_client
import aws_sdk_sagemaker_runtime_http2.config as sdk_config
from botocore.loaders import create_loader
from smithy_core.interceptors import Interceptor, OutputContext
from smithy_http.aio.interfaces import HTTPClient

from .aws_credentials import BotocoreCredentialsResolver
from .errors import describe_error

BIDI_PORT = 8443  # from the service's endpoint rules, see the module docstring


def aws_partition(region: str) -> dict[str, Any]:
    """The partition outputs for `region` (name, dnsSuffix, ...) as the endpoint rules'
    `aws.partition` function finds them: listed regions first, then each partition's region
    pattern, else the `aws` partition. Data: botocore's partitions.json."""
    partitions = create_loader().load_data("partitions")["partitions"]
    for partition in partitions:
        if region in partition["regions"]:
            return dict(partition["outputs"])
    for partition in partitions:
        if re.match(partition["regionRegex"], region):
            return dict(partition["outputs"])
    return dict(next(p for p in partitions if p["id"] == "aws")["outputs"])


def bidi_endpoint_uri(region: str) -> str:
    suffix = aws_partition(region)["dnsSuffix"]
    return f"https://runtime.sagemaker.{region}.{suffix}:{BIDI_PORT}"


def default_transport() -> HTTPClient:
    from smithy_http.aio.crt import AWSCRTHTTPClient

    return AWSCRTHTTPClient()


# The SDK's standard per-service endpoint setting (0.10+ read it themselves), then the global.
ENDPOINT_ENV = ("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2", "AWS_ENDPOINT_URL")


async def build_sagemaker_client(
    region: str,
    *,
    credentials: BotocoreCredentialsResolver | None = None,
    transport: HTTPClient | None = None,
) -> Any:
    """The production client: 8443 endpoint, botocore credentials, awscrt transport, on
    whichever SDK generation is installed (see the module docstring).

    Tests may pass a recording `transport`; nothing else differs from production."""
    if not region:
        raise ValueError("the SageMaker client needs a region")
    resolver = credentials or BotocoreCredentialsResolver(region)
    http = transport or default_transport()
    async_config = getattr(sdk_config, "AsyncSageMakerRuntimeHTTP2Config", None)
    if async_config is not None:  # SDK 0.10+
        config = await async_config.resolve(
            region=region,
            aws_credentials_identity_resolver=resolver,
            transport=http,
            interceptors=[ReportFailures()],
        )
        # An endpoint the user configured the SDK's standard way (AWS_ENDPOINT_URL_<SERVICE>,
        # AWS_ENDPOINT_URL or the profile's endpoint_url: a VPC endpoint, a test front door)
        # wins; otherwise the service's real bidirectional endpoint on 8443.
        if config.endpoint_uri is None:
            config.endpoint_uri = bidi_endpoint_uri(region)
        return sdk_client.AsyncSageMakerRuntimeHTTP2Client(config=config)
    # SDK 0.6-0.9: the same settings, given at once; the endpoint override read from the env.
    configured = next((os.environ[n] for n in ENDPOINT_ENV if os.environ.get(n)), None)
    config = sdk_config.Config(
        region=region,
        endpoint_uri=configured or bidi_endpoint_uri(region),
        aws_credentials_identity_resolver=resolver,
        transport=http,
        interceptors=[ReportFailures()],
    )
    if hasattr(sdk_client, "AsyncSageMakerRuntimeHTTP2Client"):  # 0.9
        return sdk_client.AsyncSageMakerRuntimeHTTP2Client(config=config)
    return sdk_client.SageMakerRuntimeHTTP2Client(config=config)  # 0.6-0.8


class SdkCallError(Exception):
    """The SageMaker call could not start (its credentials, or the SDK failed in its own
    background task); the message describes it and `__cause__` is the real exception."""


_CURRENT_CALL: contextvars.ContextVar[SdkCall | None] = contextvars.ContextVar(
    "sagemaker_sdk_call", default=None
)


def retrieve_exception(task: asyncio.Future[Any]) -> None:
    """Marks a finished task's exception as retrieved (it is reported another way), so
    asyncio does not log "Task exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


class ReportFailures(Interceptor[Any, Any, Any, Any]):
    """Runs in the SDK's request task; hands a failed execution to the SdkCall that started
    it (found through the context the task inherited). Stateless, so config copies share it."""

    def read_after_execution(self, context: OutputContext[Any, Any, Any, Any]) -> None:
        if not isinstance(context.response, Exception):
            return
        call = _CURRENT_CALL.get()
        if call is not None:
            call.fail(context.response)
            task = asyncio.current_task()
            if task is not None:
                task.add_done_callback(retrieve_exception)


class SdkCall:
    """Starts one SDK operation and returns its result, or raises SdkCallError the moment
    the SDK's background task fails, whichever comes first."""

    def __init__(self) -> None:
        self._failure: asyncio.Future[Exception] = asyncio.get_running_loop().create_future()

    def fail(self, exc: Exception) -> None:
        if not self._failure.done():
            self._failure.set_result(exc)

    async def start[T](self, operation: Callable[[], Awaitable[T]]) -> T:
        context = contextvars.copy_context()
        context.run(_CURRENT_CALL.set, self)

        async def run() -> T:
            return await operation()

        task = asyncio.create_task(run(), context=context)
        waiters: set[asyncio.Future[Any]] = {task, self._failure}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._failure.done() and not (task.done() and not task.cancelled()):
            exc = self._failure.result()
            raise SdkCallError(describe_error(exc)) from exc
        return task.result()

"""When the SageMaker SDK fails in its own background task (credentials, connection), the
caller gets the SDK's real error at once (type, message, cause), it is logged, and asyncio
never reports "Task exception was never retrieved".

Each test gives the pipeline a generous connect timeout: without the fix the invocation would
only end with that timeout's `TimeoutError()`, which the message checks tell apart.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import Callable

import pytest
from aws_sdk_sagemaker_runtime_http2.client import AsyncSageMakerRuntimeHTTP2Client
from aws_sdk_sagemaker_runtime_http2.config import AsyncSageMakerRuntimeHTTP2Config
from aws_sdk_sagemaker_runtime_http2.models import InvokeEndpointWithBidirectionalStreamInput
from kokoro_stream.aws_credentials import AwsCredentialsError
from kokoro_stream.sagemaker import SageMakerBidiTts
from kokoro_stream.sagemaker_client import SdkCall, SdkCallError, build_sagemaker_client
from smithy_aws_core.identity import AWSCredentialsIdentity, StaticCredentialsResolver
from smithy_http.aio.crt import AWSCRTHTTPClient

from tests.support.aws_doubles import RecordingTransport
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.payload import Invocation
from voice_agent.pipeline import VoicePipeline

REGION = "eu-central-1"
CONNECT_TIMEOUT_S = 10.0


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Nothing for any credential provider: no AWS variables, empty HOME, no IMDS."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def lost_exceptions(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """asyncio's "Task exception was never retrieved" reports, after a garbage collection
    (which is when asyncio notices a task whose exception nobody read)."""
    caplog.set_level(logging.ERROR, logger="asyncio")

    def collect() -> list[str]:
        gc.collect()
        messages = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
        return [m for m in messages if "never retrieved" in m]

    return collect


async def run_pipeline(tts: SageMakerBidiTts) -> list:
    pipeline = VoicePipeline(
        ReplayedAnswerSource("Hello. How are you?", 500), tts, connect_timeout_s=CONNECT_TIMEOUT_S
    )
    try:
        return [event async for event in pipeline.run(Invocation(prompt="hi"))]
    finally:
        await tts.aclose()


async def test_no_credentials_end_the_invocation_with_botocores_reason(
    no_credentials, lost_exceptions, caplog
) -> None:
    caplog.set_level(logging.ERROR, logger="kokoro_stream")
    transport = RecordingTransport()
    events = await run_pipeline(SageMakerBidiTts("kokoro", region=REGION, transport=transport))
    last = events[-1]
    assert last["type"] == "error", last
    assert (last["code"], last["fatal"]) == ("tts_unavailable", True)
    assert "AwsCredentialsError: no AWS credentials found" in last["message"]
    assert transport.requests == []  # nothing unsigned ever left
    logged = [r for r in caplog.records if r.name.startswith("kokoro_stream")]
    assert any("no AWS credentials found" in r.getMessage() for r in logged)
    await asyncio.sleep(0)
    assert lost_exceptions() == []


async def test_a_failure_inside_the_sdks_task_is_raised_to_the_caller(
    no_credentials, lost_exceptions
) -> None:
    """The SDK resolves credentials in its background task; before the fix its caller waited
    forever and the error was only logged at garbage collection."""
    client = await build_sagemaker_client(REGION, transport=RecordingTransport())
    request = InvokeEndpointWithBidirectionalStreamInput(endpoint_name="kokoro")
    with pytest.raises(SdkCallError) as raised:
        await asyncio.wait_for(
            SdkCall().start(lambda: client.invoke_endpoint_with_bidirectional_stream(request)),
            CONNECT_TIMEOUT_S,
        )
    assert isinstance(raised.value.__cause__, AwsCredentialsError)
    assert str(raised.value).startswith("AwsCredentialsError: no AWS credentials found")
    await client.close()
    await asyncio.sleep(0)
    assert lost_exceptions() == []


async def _refused_port() -> int:
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    return port


async def test_a_connection_failure_reaches_the_caller_with_the_sdks_error(
    lost_exceptions,
) -> None:
    """The real awscrt transport against a closed loopback port (the endpoint is the one
    thing changed, to stay on this machine)."""
    config = await AsyncSageMakerRuntimeHTTP2Config.resolve(
        region=REGION,
        endpoint_uri=f"https://127.0.0.1:{await _refused_port()}",
        aws_credentials_identity_resolver=StaticCredentialsResolver(
            AWSCredentialsIdentity(access_key_id="AKIDLOCAL", secret_access_key="local")
        ),
        transport=AWSCRTHTTPClient(),
    )
    tts = SageMakerBidiTts("kokoro", client=AsyncSageMakerRuntimeHTTP2Client(config=config))
    events = await run_pipeline(tts)
    last = events[-1]
    assert last["type"] == "error" and last["fatal"], last
    assert last["code"] in ("tts_unavailable", "tts_send_failed")
    assert "AWS_IO_SOCKET_CONNECTION_REFUSED" in last["message"]
    assert "caused by AwsCrtError" in last["message"]
    await asyncio.sleep(0)
    assert lost_exceptions() == []

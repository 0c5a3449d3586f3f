"""Contract tests for `KokoroSageMakerTTSService`: the REAL SageMaker HTTP/2 client, built as
production builds it; only the HTTP transport the client takes from
`kokoro_stream.sagemaker_client.default_transport` is swapped for a recording one (AWS is not
reachable; tests/support/aws_doubles.py). What the client sends is checked against the
sources: the endpoint rules shipped in the SDK, its HTTP binding, and SigV4 as AWS defines
it (every event signature verified independently of the SDK's signer).
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlparse

import pytest
from kokoro_stream.aws_credentials import BotocoreCredentialsResolver
from kokoro_stream.sagemaker_client import bidi_endpoint_uri
from pipecat.frames.frames import ErrorFrame
from pipecat.utils.errors import ErrorCategory
from smithy_http.aio.crt import AWSCRTHTTPClient

from pipecat_kokoro import KokoroSageMakerTTSService
from tests.support.aws_doubles import (
    ContainerCredentialsEndpoint,
    RecordingTransport,
    RoleCredentials,
)
from tests.support.endpoint_rules import resolve
from tests.support.pipecat_pipeline import BotPipeline
from tests.support.sagemaker_contract import (
    ENDPOINT,
    ENV_KEYS,
    REGION,
    DenyAtOnce,
    checked_stream,
    record_http,
    signed_by,
)


async def one_turn(tts: KokoroSageMakerTTSService) -> list:
    """A bot that starts (the stream opens), speaks one turn and ends (the stream closes)."""
    async with BotPipeline(tts) as bot:
        await bot.reply("Hello there.")
    return list(bot.up.frames)


def service(
    monkeypatch: pytest.MonkeyPatch, transport: RecordingTransport
) -> KokoroSageMakerTTSService:
    record_http(monkeypatch, transport)
    # No retries and a short playout wait: the recording transport never answers with audio.
    return KokoroSageMakerTTSService(
        endpoint_name=ENDPOINT, region=REGION, reconnect_attempts=0, stop_frame_timeout_s=0.5
    )


@pytest.mark.parametrize("region", ["us-east-1", REGION, "cn-north-1"])
def test_endpoint_is_what_the_services_own_rules_give(region: str) -> None:
    assert bidi_endpoint_uri(region) == resolve(region)["url"]
    assert urlparse(bidi_endpoint_uri(region)).port == 8443


@pytest.mark.usefixtures("env_keys")
async def test_production_client_uses_awscrt_and_botocores_chain() -> None:
    tts = KokoroSageMakerTTSService(endpoint_name=ENDPOINT, region=REGION)
    client = await tts._transport._get_client()  # type: ignore[attr-defined]
    assert isinstance(client._config.transport, AWSCRTHTTPClient)  # aiohttp cannot do duplex
    assert isinstance(client._config.aws_credentials_identity_resolver, BotocoreCredentialsResolver)
    assert client._config.endpoint_uri == resolve(REGION)["url"]
    await tts._transport.aclose()


@pytest.mark.usefixtures("env_keys")
async def test_one_bot_one_stream_to_port_8443_signed_with_env_credentials(monkeypatch) -> None:
    transport = RecordingTransport()
    errors = await one_turn(service(monkeypatch, transport))

    [request] = transport.requests  # one long-lived stream for the bot
    # start, text, text, flush, and the end-of-stream frame: each signed in the chain.
    assert checked_stream(request, endpoint=ENDPOINT, region=REGION, keys=ENV_KEYS) == 5
    assert not any(isinstance(f, ErrorFrame) and "session" in f.error for f in errors)


@pytest.mark.usefixtures("env_keys")
async def test_aws_refusing_the_stream_surfaces_as_an_error_frame(monkeypatch) -> None:
    errors = await one_turn(service(monkeypatch, DenyAtOnce()))
    denied = [f for f in errors if isinstance(f, ErrorFrame) and "AccessDenied" in f.error]
    assert denied and ENDPOINT in denied[0].error


@pytest.mark.usefixtures("bare_aws_env")
async def test_container_role_credentials_with_nothing_in_env(monkeypatch) -> None:
    role = RoleCredentials("ASIAPIPECATROLE", "role-secret", "role-token", timedelta(hours=1))
    with ContainerCredentialsEndpoint([role]).running() as endpoint:
        monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint.url)
        monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "runtime-auth-token")
        transport = RecordingTransport()
        await one_turn(service(monkeypatch, transport))

    assert endpoint.authorizations == ["runtime-auth-token"]
    [request] = transport.requests
    signed_by(request, role.access_key_id, role.token, REGION)


@pytest.mark.usefixtures("bare_aws_env")
async def test_no_credentials_is_a_clear_error_frame(monkeypatch) -> None:
    transport = RecordingTransport()
    errors = await one_turn(service(monkeypatch, transport))
    assert transport.requests == []
    [frame] = [f for f in errors if isinstance(f, ErrorFrame) and "no AWS credentials" in f.error]
    assert ENDPOINT in frame.error and "cannot open a Kokoro session" in frame.error
    assert frame.category == ErrorCategory.AUTHENTICATION  # says what failed


@pytest.mark.usefixtures("bare_aws_env")
def test_region_comes_from_aws_region_when_not_given(monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-northeast-1")
    assert KokoroSageMakerTTSService(endpoint_name=ENDPOINT).region == "ap-northeast-1"


@pytest.mark.usefixtures("bare_aws_env")
def test_no_region_anywhere_is_refused() -> None:
    with pytest.raises(ValueError, match="no AWS region"):
        KokoroSageMakerTTSService(endpoint_name=ENDPOINT)

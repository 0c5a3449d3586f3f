"""Contract tests: the REAL AsyncSageMakerRuntimeHTTP2Client, built by the same builder
production uses; the only thing swapped is its HTTP transport (a recording one, AWS is not
reachable). What the client sends is checked against the sources: the service's own endpoint
rules and HTTP binding shipped in the SDK, and SigV4 as AWS defines it.

Credentials come from where a deployment has them: environment variables, or a container
credentials endpoint (AgentCore / ECS) on loopback with no keys in the environment and an
empty HOME; temporary ones are refreshed before they expire.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from kokoro_stream import SessionOptions
from kokoro_stream.aws_credentials import BotocoreCredentialsResolver
from kokoro_stream.sagemaker import SageMakerBidiTts
from kokoro_stream.sagemaker_client import bidi_endpoint_uri
from smithy_http.aio.crt import AWSCRTHTTPClient

from tests.support.aws_doubles import (
    ContainerCredentialsEndpoint,
    RecordingTransport,
    RoleCredentials,
    verify_event_signatures,
)
from tests.support.endpoint_rules import resolve
from tests.support.sagemaker_contract import ENDPOINT, ENV_KEYS, REGION, checked_stream, signed_by

# botocore refreshes temporary credentials this long before they expire (its advisory window).
BOTOCORE_ADVISORY_REFRESH = timedelta(minutes=15)


async def open_and_close(tts: SageMakerBidiTts, *texts: str) -> None:
    session = await tts.open_session(SessionOptions())
    for text in texts:
        await session.send_text(text)
    await session.aclose()


@pytest.mark.parametrize("region", ["us-east-1", REGION, "ap-northeast-1", "cn-north-1"])
def test_endpoint_is_what_the_services_own_rules_give(region: str) -> None:
    assert bidi_endpoint_uri(region) == resolve(region)["url"]


def test_the_rules_evaluator_reads_the_shipped_rules() -> None:
    """The evaluator's own check: other parameters give the rules' other outcomes."""
    assert resolve(None) == {"error": "Invalid Configuration: Missing Region"}
    fips = urlparse(resolve("us-east-1", use_fips=True)["url"])
    assert fips.hostname == "runtime-fips.sagemaker.us-east-1.amazonaws.com"


@pytest.mark.usefixtures("env_keys")
async def test_production_builds_the_client_on_the_awscrt_transport() -> None:
    tts = SageMakerBidiTts(ENDPOINT, region=REGION)
    client = await tts._get_client()
    assert isinstance(client._config.transport, AWSCRTHTTPClient)  # aiohttp cannot do duplex
    assert isinstance(client._config.aws_credentials_identity_resolver, BotocoreCredentialsResolver)
    await tts.aclose()


@pytest.mark.usefixtures("env_keys")
async def test_stream_goes_to_the_rules_port_signed_with_env_credentials() -> None:
    transport = RecordingTransport()
    tts = SageMakerBidiTts(ENDPOINT, region=REGION, transport=transport)
    await open_and_close(tts, "Hello there.")
    await tts.aclose()

    [request] = transport.requests
    await asyncio.wait_for(request.body_done.wait(), 5)
    # start, text, close frame: every event signed in the chain seeded by the request.
    assert checked_stream(request, endpoint=ENDPOINT, region=REGION, keys=ENV_KEYS) == 3


@pytest.mark.usefixtures("bare_aws_env")
async def test_container_credentials_with_no_keys_in_env_and_an_empty_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    role = RoleCredentials(
        "ASIACONTAINERROLE1", "container-secret", "container-token", timedelta(hours=1)
    )
    with ContainerCredentialsEndpoint([role]).running() as endpoint:
        monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint.url)
        monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "runtime-auth-token")
        transport = RecordingTransport()
        tts = SageMakerBidiTts(ENDPOINT, region=REGION, transport=transport)
        await open_and_close(tts)
        await open_and_close(tts)  # the second stream reuses the cached credentials
        await tts.aclose()

    assert endpoint.authorizations == ["runtime-auth-token"]
    for request in transport.requests:
        signed_by(request, role.access_key_id, role.token, REGION)
    assert len(transport.requests) == 2


@pytest.mark.usefixtures("bare_aws_env")
async def test_credentials_refresh_before_expiry_and_a_stream_keeps_its_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first key enters botocore's refresh window 1.5 s after it is handed out.
    first = RoleCredentials(
        "ASIAFIRSTKEY",
        "first-secret",
        "first-token",
        BOTOCORE_ADVISORY_REFRESH + timedelta(seconds=1.5),
    )
    second = RoleCredentials("ASIASECONDKEY", "second-secret", "second-token", timedelta(hours=1))
    with ContainerCredentialsEndpoint([first, second]).running() as endpoint:
        monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint.url)
        transport = RecordingTransport()
        tts = SageMakerBidiTts(ENDPOINT, region=REGION, transport=transport)
        early = await tts.open_session(SessionOptions())
        refresh_at = time.monotonic() + 1.6
        await asyncio.sleep(refresh_at - time.monotonic())
        late = await tts.open_session(SessionOptions())
        await early.send_text("Sent after the refresh, on the stream opened before it.")
        await early.aclose()
        await late.aclose()
        await tts.aclose()

    assert len(endpoint.authorizations) == 2  # fetched once, refreshed once
    early_request, late_request = transport.requests
    early_credential = signed_by(early_request, first.access_key_id, first.token, REGION)
    signed_by(late_request, second.access_key_id, second.token, REGION)
    await asyncio.wait_for(early_request.body_done.wait(), 5)
    # The early stream's events, including the one sent after the refresh, stay in its chain.
    checked = verify_event_signatures(
        bytes(early_request.body),
        early_credential,
        first.secret_access_key,
        region=REGION,
        service="sagemaker",
    )
    assert checked == 3  # start, text, close frame

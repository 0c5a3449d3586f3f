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
from aws_sdk_sagemaker_runtime_http2.models import INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM
from kokoro_stream.aws_credentials import BotocoreCredentialsResolver
from kokoro_stream.sagemaker import SageMakerBidiTts
from kokoro_stream.sagemaker_client import bidi_endpoint_uri
from smithy_core.shapes import ShapeID
from smithy_http.aio.crt import AWSCRTHTTPClient

from tests.support.aws_doubles import (
    ContainerCredentialsEndpoint,
    RecordingTransport,
    RoleCredentials,
    sigv4_credential,
    verify_event_signatures,
)
from tests.support.endpoint_rules import resolve

REGION = "eu-central-1"
ENDPOINT = "kokoro-tts"
# botocore refreshes temporary credentials this long before they expire (its advisory window).
BOTOCORE_ADVISORY_REFRESH = timedelta(minutes=15)


def request_path(endpoint_name: str) -> str:
    """The operation's HTTP binding from the SDK's service model."""
    http = INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM.schema.traits[ShapeID("smithy.api#http")]
    return http.document_value["uri"].replace("{EndpointName}", endpoint_name)


@pytest.fixture
def bare_aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No AWS variables at all, an empty HOME, no instance metadata: only what a test adds."""
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def env_keys(bare_aws_env: None, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    keys = {
        "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENTKEY1",
        "AWS_SECRET_ACCESS_KEY": "environment-secret",
        "AWS_SESSION_TOKEN": "environment-session-token",
    }
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    return keys


async def open_and_close(tts: SageMakerBidiTts, *texts: str) -> None:
    session = await tts.open_session(None, "pcm", 24000)
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


async def test_production_builds_the_client_on_the_awscrt_transport(env_keys) -> None:
    tts = SageMakerBidiTts(ENDPOINT, region=REGION)
    client = await tts._get_client()
    assert isinstance(client._config.transport, AWSCRTHTTPClient)  # aiohttp cannot do duplex
    assert isinstance(client._config.aws_credentials_identity_resolver, BotocoreCredentialsResolver)
    await tts.aclose()


async def test_stream_goes_to_the_rules_port_signed_with_env_credentials(env_keys) -> None:
    transport = RecordingTransport()
    tts = SageMakerBidiTts(ENDPOINT, region=REGION, transport=transport)
    await open_and_close(tts, "Hello there.")
    await tts.aclose()

    [request] = transport.requests
    expected = urlparse(resolve(REGION)["url"])
    assert (request.method, request.scheme) == ("POST", "https")
    assert (request.host, request.port) == (expected.hostname, expected.port)
    assert request.path == request_path(ENDPOINT)
    credential = sigv4_credential(request.headers["authorization"])
    assert credential.access_key_id == env_keys["AWS_ACCESS_KEY_ID"]
    assert (credential.region, credential.service) == (REGION, "sagemaker")
    assert request.headers["x-amz-security-token"] == env_keys["AWS_SESSION_TOKEN"]
    await asyncio.wait_for(request.body_done.wait(), 5)
    # start, text, close frame: every event signed in the chain seeded by the request.
    events = verify_event_signatures(
        bytes(request.body),
        credential,
        env_keys["AWS_SECRET_ACCESS_KEY"],
        region=REGION,
        service="sagemaker",
    )
    assert events == 3


async def test_container_credentials_with_no_keys_in_env_and_an_empty_home(
    bare_aws_env, monkeypatch: pytest.MonkeyPatch
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
        credential = sigv4_credential(request.headers["authorization"])
        assert (credential.access_key_id, credential.region) == (role.access_key_id, REGION)
        assert request.headers["x-amz-security-token"] == role.token
    assert len(transport.requests) == 2


async def test_credentials_refresh_before_expiry_and_a_stream_keeps_its_key(
    bare_aws_env, monkeypatch: pytest.MonkeyPatch
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
        early = await tts.open_session(None, "pcm", 24000)
        refresh_at = time.monotonic() + 1.6
        await asyncio.sleep(refresh_at - time.monotonic())
        late = await tts.open_session(None, "pcm", 24000)
        await early.send_text("Sent after the refresh, on the stream opened before it.")
        await early.aclose()
        await late.aclose()
        await tts.aclose()

    assert len(endpoint.authorizations) == 2  # fetched once, refreshed once
    early_request, late_request = transport.requests
    early_credential = sigv4_credential(early_request.headers["authorization"])
    late_credential = sigv4_credential(late_request.headers["authorization"])
    assert early_credential.access_key_id == first.access_key_id
    assert late_credential.access_key_id == second.access_key_id
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

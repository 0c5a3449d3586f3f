"""Contract tests for `KokoroSageMakerTTSService`: the REAL SageMaker HTTP/2 client, built as
production builds it; only its HTTP transport is swapped for a recording one (AWS is not
reachable; tests/agent/aws_doubles.py). What the client sends is checked against the
sources: the endpoint rules shipped in the SDK, its HTTP binding, and SigV4 as AWS defines
it (every event signature verified independently of the SDK's signer).
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any
from urllib.parse import urlparse

import pytest
from aws_sdk_sagemaker_runtime_http2.models import INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM
from kokoro_stream.aws_credentials import BotocoreCredentialsResolver
from kokoro_stream.sagemaker_client import bidi_endpoint_uri
from pipecat.frames.frames import ErrorFrame
from pipecat.utils.errors import ErrorCategory
from smithy_core.shapes import ShapeID
from smithy_http import Field, Fields
from smithy_http.aio import HTTPResponse
from smithy_http.aio.crt import AWSCRTHTTPClient

from pipecat_kokoro import KokoroSageMakerTTSService
from tests.support.aws_doubles import (
    ContainerCredentialsEndpoint,
    RecordingTransport,
    RoleCredentials,
    sigv4_credential,
    verify_event_signatures,
)
from tests.support.endpoint_rules import resolve
from tests.support.pipecat_pipeline import BotPipeline

REGION = "eu-central-1"
ENDPOINT = "kokoro-tts"


def request_path(endpoint_name: str) -> str:
    """The operation's HTTP binding from the SDK's service model."""
    http = INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM.schema.traits[ShapeID("smithy.api#http")]
    return http.document_value["uri"].replace("{EndpointName}", endpoint_name)


@pytest.fixture
def bare_aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No AWS variables, an empty HOME, no instance metadata: only what a test adds."""
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
        "AWS_ACCESS_KEY_ID": "AKIAPIPECATENVKEY",
        "AWS_SECRET_ACCESS_KEY": "pipecat-env-secret",
        "AWS_SESSION_TOKEN": "pipecat-env-token",
    }
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    return keys


async def one_turn(tts: KokoroSageMakerTTSService) -> list:
    """A bot that starts (the stream opens), speaks one turn and ends (the stream closes)."""
    async with BotPipeline(tts) as bot:
        await bot.reply("Hello there.")
    return list(bot.up.frames)


def service(transport: RecordingTransport | None = None) -> KokoroSageMakerTTSService:
    # No retries and a short playout wait: the recording transport never answers with audio.
    return KokoroSageMakerTTSService(
        endpoint_name=ENDPOINT,
        region=REGION,
        http_transport=transport,
        reconnect_attempts=0,
        stop_frame_timeout_s=0.5,
    )


@pytest.mark.parametrize("region", ["us-east-1", REGION, "cn-north-1"])
def test_endpoint_is_what_the_services_own_rules_give(region: str) -> None:
    assert bidi_endpoint_uri(region) == resolve(region)["url"]
    assert urlparse(bidi_endpoint_uri(region)).port == 8443


async def test_production_client_uses_awscrt_and_botocores_chain(env_keys) -> None:
    tts = KokoroSageMakerTTSService(endpoint_name=ENDPOINT, region=REGION)
    client = await tts._transport._get_client()  # type: ignore[attr-defined]
    assert isinstance(client._config.transport, AWSCRTHTTPClient)  # aiohttp cannot do duplex
    assert isinstance(client._config.aws_credentials_identity_resolver, BotocoreCredentialsResolver)
    assert client._config.endpoint_uri == resolve(REGION)["url"]
    await tts._transport.aclose()


async def test_one_bot_one_stream_to_port_8443_signed_with_env_credentials(env_keys) -> None:
    transport = RecordingTransport()
    errors = await one_turn(service(transport))

    [request] = transport.requests  # one long-lived stream for the bot
    expected = urlparse(resolve(REGION)["url"])
    assert (request.method, request.scheme) == ("POST", "https")
    assert (request.host, request.port) == (expected.hostname, expected.port)
    assert request.path == request_path(ENDPOINT)
    credential = sigv4_credential(request.headers["authorization"])
    assert credential.access_key_id == env_keys["AWS_ACCESS_KEY_ID"]
    assert (credential.region, credential.service) == (REGION, "sagemaker")
    assert request.headers["x-amz-security-token"] == env_keys["AWS_SESSION_TOKEN"]
    # start, text, text, flush, and the end-of-stream frame: each signed in the chain.
    events = verify_event_signatures(
        bytes(request.body),
        credential,
        env_keys["AWS_SECRET_ACCESS_KEY"],
        region=REGION,
        service="sagemaker",
    )
    assert events == 5
    assert not any(isinstance(f, ErrorFrame) and "session" in f.error for f in errors)


class DenyAtOnce(RecordingTransport):
    """TEST DOUBLE: answers AccessDenied before the request body ends, as AWS does for a
    role without sagemaker:InvokeEndpointWithBidirectionalStream."""

    async def send(self, request: Any, *, request_config: Any = None) -> HTTPResponse:
        self.requests.append(request)
        return HTTPResponse(
            status=403,
            fields=Fields(
                [
                    Field(name="content-type", values=["application/json"]),
                    Field(name="x-amzn-errortype", values=["AccessDeniedException"]),
                ]
            ),
            body=b'{"message": "not authorized to invoke this endpoint"}',
        )


async def test_aws_refusing_the_stream_surfaces_as_an_error_frame(env_keys) -> None:
    errors = await one_turn(service(DenyAtOnce()))
    denied = [f for f in errors if isinstance(f, ErrorFrame) and "AccessDenied" in f.error]
    assert denied and ENDPOINT in denied[0].error


async def test_container_role_credentials_with_nothing_in_env(bare_aws_env, monkeypatch) -> None:
    role = RoleCredentials("ASIAPIPECATROLE", "role-secret", "role-token", timedelta(hours=1))
    with ContainerCredentialsEndpoint([role]).running() as endpoint:
        monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint.url)
        monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "runtime-auth-token")
        transport = RecordingTransport()
        await one_turn(service(transport))

    assert endpoint.authorizations == ["runtime-auth-token"]
    [request] = transport.requests
    credential = sigv4_credential(request.headers["authorization"])
    assert (credential.access_key_id, credential.region) == (role.access_key_id, REGION)
    assert request.headers["x-amz-security-token"] == role.token


async def test_no_credentials_is_a_clear_error_frame(bare_aws_env) -> None:
    transport = RecordingTransport()
    errors = await one_turn(service(transport))
    assert transport.requests == []
    [frame] = [f for f in errors if isinstance(f, ErrorFrame) and "no AWS credentials" in f.error]
    assert ENDPOINT in frame.error and "cannot open a Kokoro session" in frame.error
    assert frame.category == ErrorCategory.AUTHENTICATION  # says what failed


def test_region_comes_from_aws_region_when_not_given(bare_aws_env, monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-northeast-1")
    assert KokoroSageMakerTTSService(endpoint_name=ENDPOINT).region == "ap-northeast-1"


def test_no_region_anywhere_is_refused(bare_aws_env) -> None:
    with pytest.raises(ValueError, match="no AWS region"):
        KokoroSageMakerTTSService(endpoint_name=ENDPOINT)

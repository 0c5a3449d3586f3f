"""What the SageMaker contract tests share (the client's own, the Pipecat service's and the
LiveKit plugin's): the operation's HTTP path from the SDK's service model, a recorded stream
checked against the sources (the endpoint rules, that path, SigV4), an AWS environment
emptied of everything a test does not add, keys in the environment, an AWS that refuses a
stream at once, and the seam that puts a recording transport under a production-built client.

The conftest files of the test folders that hold contract tests (tests/agent,
tests/integrations/pipecat, tests/integrations/livekit) import the two fixtures, so a test
names them in `pytest.mark.usefixtures`; `ENV_KEYS` are the keys `env_keys` sets, and the
contract tests call the same `ENDPOINT` in the same `REGION`.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from aws_sdk_sagemaker_runtime_http2.models import INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM
from kokoro_stream import sagemaker_client
from smithy_core.shapes import ShapeID
from smithy_http.aio import HTTPResponse

from tests.support.aws_doubles import (
    RecordedRequest,
    RecordingTransport,
    SigV4Credential,
    sigv4_credential,
    verify_event_signatures,
)
from tests.support.endpoint_rules import resolve

ENDPOINT = "kokoro-tts"
REGION = "eu-central-1"
ENV_KEYS = {
    "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENTKEY1",
    "AWS_SECRET_ACCESS_KEY": "environment-secret",
    "AWS_SESSION_TOKEN": "environment-session-token",
}


def request_path(endpoint_name: str) -> str:
    """The operation's HTTP binding from the SDK's service model."""
    http = INVOKE_ENDPOINT_WITH_BIDIRECTIONAL_STREAM.schema.traits[ShapeID("smithy.api#http")]
    uri: str = http.document_value["uri"]
    return uri.replace("{EndpointName}", endpoint_name)


def record_http(monkeypatch: pytest.MonkeyPatch, transport: RecordingTransport) -> None:
    """Every SageMaker client built from now on (as production builds it, by an integration's
    own constructor) sends through `transport` instead of awscrt: the one thing swapped."""
    monkeypatch.setattr(sagemaker_client, "default_transport", lambda: transport)


def signed_by(
    request: RecordedRequest, access_key_id: str, token: str, region: str
) -> SigV4Credential:
    """The request's SigV4 credential, checked: that key and session token, for SageMaker
    in `region`."""
    credential = sigv4_credential(request.headers["authorization"])
    assert (credential.access_key_id, credential.region) == (access_key_id, region)
    assert credential.service == "sagemaker"
    assert request.headers["x-amz-security-token"] == token
    return credential


def checked_stream(
    request: RecordedRequest, *, endpoint: str, region: str, keys: dict[str, str]
) -> int:
    """One recorded stream (its body read to the end) against the sources: a POST to the
    host and port the endpoint rules give, the binding's path, signed with `keys`; returns
    how many events its signature chain holds, each verified independently of the SDK."""
    expected = urlparse(resolve(region)["url"])
    assert (request.method, request.scheme) == ("POST", "https")
    assert (request.host, request.port) == (expected.hostname, expected.port)
    assert request.path == request_path(endpoint)
    credential = signed_by(request, keys["AWS_ACCESS_KEY_ID"], keys["AWS_SESSION_TOKEN"], region)
    return verify_event_signatures(
        bytes(request.body),
        credential,
        keys["AWS_SECRET_ACCESS_KEY"],
        region=region,
        service="sagemaker",
    )


@pytest.fixture
def bare_aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No AWS variables at all, an empty HOME, no instance metadata: only what a test adds."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def env_keys(bare_aws_env: None, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Static keys in the environment (botocore's first source), nothing else."""
    for name, value in ENV_KEYS.items():
        monkeypatch.setenv(name, value)
    return dict(ENV_KEYS)


class DenyAtOnce(RecordingTransport):
    """TEST DOUBLE: the recording transport's AccessDenied, answered before the request body
    ends, as AWS does for a role without sagemaker:InvokeEndpointWithBidirectionalStream."""

    async def send(self, request: Any, *, request_config: Any = None) -> HTTPResponse:
        mine = len(self.requests)
        answer = asyncio.ensure_future(super().send(request, request_config=request_config))
        await asyncio.sleep(0)  # its first step records the request (no await before that)
        self.requests[mine].body_done.set()  # answer now, not when the client ends its stream
        return await answer

"""Fixtures for the smoke-check tests: fake credentials, a moto server standing in for the
CloudFormation/SageMaker control planes, and the AWS front-door stand-in in front of the real
Kokoro server and a real voice agent (all on 127.0.0.1).

Every boto3 client under test is built by the smoke check's own code; these fixtures only
route it with the SDKs' standard per-service endpoint variables (AWS_ENDPOINT_URL_<SERVICE>),
exactly as a user would point it at a VPC endpoint.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.sagemaker.models import sagemaker_backends
from moto.server import ThreadedMotoServer

from demo.server_process import free_port
from tests.container.threaded_server import AppServer, ThreadedServer
from tests.smoke.aws_front import ACCOUNT, AwsFront
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.tts.websocket import WebSocketTts

REGION = "us-east-1"
ENDPOINT = "kokoro-voice-tts"
RUNTIME_ARN = f"arn:aws:bedrock-agentcore:{REGION}:{ACCOUNT}:runtime/kokoro_voice_agent-Ab12Cd34Ef"
ANSWER = "Hello from the agent. Two sentences."
KEY_ID = "AKIASMOKETESTKEY0001"  # fake; only loopback stand-ins ever see it

# Every variable that could route or authenticate a client differently from what a test sets.
_AWS_VARS = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_SESSION_TOKEN",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_CLOUDFORMATION",
    "AWS_ENDPOINT_URL_SAGEMAKER",
    "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME",
    "AWS_ENDPOINT_URL_BEDROCK_AGENTCORE",
    "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Fake keys in the environment, no config files, no instance metadata lookups."""
    for name in _AWS_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-for-loopback-only")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return monkeypatch


def route_env(
    moto_url: str | None = None, front_url: str | None = None, stream_url: str | None = None
) -> dict[str, str]:
    """AWS_ENDPOINT_URL_<SERVICE> for each stand-in that is given."""
    env: dict[str, str] = {}
    if moto_url:
        env["AWS_ENDPOINT_URL_CLOUDFORMATION"] = moto_url
        env["AWS_ENDPOINT_URL_SAGEMAKER"] = moto_url
    if front_url:
        env["AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME"] = front_url
        env["AWS_ENDPOINT_URL_BEDROCK_AGENTCORE"] = front_url
    if stream_url:
        env["AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2"] = stream_url
    return env


@pytest.fixture(scope="session")
def moto_url() -> Iterator[str]:
    """moto in server mode on loopback (CloudFormation outputs, DescribeEndpoint)."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@dataclass
class Deployed:
    """What `cdk deploy` would have left in moto: the two stacks' outputs, the endpoint."""

    moto_url: str

    def _client(self, service: str) -> Any:
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.moto_url,
            aws_access_key_id=KEY_ID,
            aws_secret_access_key="fake",
        )

    def stack(self, name: str, outputs: dict[str, str]) -> None:
        template = {
            "Resources": {
                "Marker": {
                    "Type": "AWS::Logs::LogGroup",
                    "Properties": {"LogGroupName": f"/smoke-test/{name}"},
                }
            },
            "Outputs": {key: {"Value": value} for key, value in outputs.items()},
        }
        self._client("cloudformation").create_stack(
            StackName=name, TemplateBody=json.dumps(template)
        )

    def endpoint(self, status: str = "InService", failure_reason: str | None = None) -> None:
        sagemaker = self._client("sagemaker")
        sagemaker.create_model(
            ModelName="kokoro",
            ExecutionRoleArn=f"arn:aws:iam::{ACCOUNT}:role/smoke-test",
            PrimaryContainer={"Image": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/kokoro:1"},
        )
        # moto rejects ml.g5 instance types; the type plays no part in these checks.
        sagemaker.create_endpoint_config(
            EndpointConfigName="kokoro-config",
            ProductionVariants=[
                {
                    "VariantName": "AllTraffic",
                    "ModelName": "kokoro",
                    "InitialInstanceCount": 1,
                    "InstanceType": "ml.m5.large",
                }
            ],
        )
        sagemaker.create_endpoint(EndpointName=ENDPOINT, EndpointConfigName="kokoro-config")
        # Endpoints are InService at once in moto; other states are set on its backend.
        fake = sagemaker_backends[ACCOUNT][REGION].endpoints[ENDPOINT]
        fake.endpoint_status = status
        fake.failure_reason = failure_reason

    def everything(self) -> None:
        self.stack("KokoroVoice-Tts", {"EndpointName": ENDPOINT, "EndpointArn": "arn:x"})
        self.stack("KokoroVoice-Agent", {"RuntimeArn": RUNTIME_ARN})
        self.endpoint()


@pytest.fixture
def deployed(moto_url: str, aws_env: pytest.MonkeyPatch) -> Deployed:
    """An empty moto account for each test (moto's reset API), to fill as the test needs."""
    urllib.request.urlopen(
        urllib.request.Request(f"{moto_url}/moto-api/reset", method="POST"), timeout=10
    ).close()
    return Deployed(moto_url)


@pytest.fixture(scope="module")
def agent_url(server: ThreadedServer) -> Iterator[str]:
    """The real voice agent (replayed answer, named as such) in front of the real Kokoro."""
    app = create_agent_app(
        AgentSettings(), ReplayedAnswerSource(ANSWER, tokens_per_s=80), WebSocketTts(server.ws)
    )
    with AppServer(app) as agent:
        yield agent.http


@pytest.fixture(scope="module")
def front_server(server: ThreadedServer, agent_url: str) -> Iterator[tuple[AwsFront, str]]:
    front = AwsFront(kokoro_url=server.http, agent_url=agent_url, region=REGION)
    with AppServer(front.app) as running:
        yield front, running.http


@pytest.fixture
def front(front_server: tuple[AwsFront, str]) -> Iterator[AwsFront]:
    stand_in, _ = front_server
    stand_in.reset()
    yield stand_in
    stand_in.reset()


@pytest.fixture
def front_url(front_server: tuple[AwsFront, str], front: AwsFront) -> str:
    return front_server[1]

"""The smoke-check tests' world: fake identities, the routing of each boto3 client to its
loopback stand-in (AWS_ENDPOINT_URL_<SERVICE>), and what `cdk deploy` would have left in a
moto server (the two stacks' outputs, the endpoint)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import boto3
from moto.sagemaker.models import sagemaker_backends

from smoke.aws import make_client, make_session
from tests.support.aws_front import ACCOUNT

REGION = "us-east-1"
ENDPOINT = "kokoro-voice-tts"
RUNTIME_ARN = f"arn:aws:bedrock-agentcore:{REGION}:{ACCOUNT}:runtime/kokoro_voice_agent-Ab12Cd34Ef"
ANSWER = "Hello from the agent. Two sentences."
KEY_ID = "AKIASMOKETESTKEY0001"  # fake; only loopback stand-ins ever see it

# Every variable that could route or authenticate a client differently from what a test sets.
AWS_VARS = (
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


def front_client(env: Any, service: str, url: str, timeout_s: float) -> Any:
    """A smoke check's boto3 client for `service`, routed to the AWS front at `url` the way
    the checks find an endpoint: AWS_ENDPOINT_URL_<SERVICE> (env: a pytest MonkeyPatch)."""
    for name, value in route_env(front_url=url).items():
        env.setenv(name, value)
    return make_client(make_session(None), service, REGION, timeout_s)


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
        # moto sets `failure_reason = None` in FakeEndpoint.__init__, so it is typed `None`.
        fake.failure_reason = failure_reason  # type: ignore[assignment]

    def everything(self) -> None:
        self.stack("KokoroVoice-Tts", {"EndpointName": ENDPOINT, "EndpointArn": "arn:x"})
        self.stack("KokoroVoice-Agent", {"RuntimeArn": RUNTIME_ARN})
        self.endpoint()

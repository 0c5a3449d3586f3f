"""Region precedence, and where the boto3 clients the smoke check builds really send.

The clients are the production ones (smoke.cli.build_plan / Plan.client); botocore's own
`before-send` hook records each request and answers it, so nothing leaves the machine while
the real endpoint resolution, signing and retry configuration all run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from botocore.awsrequest import AWSPreparedRequest, AWSResponse

from smoke import cli
from smoke.agent_runtime import run_agent_check
from smoke.aws import SetupError, make_session, resolve_region
from smoke.diagnosis import Cause
from smoke.invoke_endpoint import run_invoke_check
from tests.smoke.conftest import ENDPOINT, KEY_ID, RUNTIME_ARN

CORAL = "http://internal.amazon.com/coral/com.amazon.coral.service/"


@pytest.fixture
def profile_region(aws_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("[default]\nregion = eu-central-1\n")
    aws_env.setenv("AWS_CONFIG_FILE", str(config))


@pytest.mark.parametrize(
    ("flag", "env", "expected"),
    [
        ("ap-south-1", {"AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "us-east-2"},
         ("ap-south-1", "--region")),
        (None, {"AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "us-east-2"},
         ("us-west-2", "AWS_REGION")),
        (None, {"AWS_DEFAULT_REGION": "us-east-2"}, ("us-east-2", "AWS_DEFAULT_REGION")),
        (None, {}, ("eu-central-1", "profile default")),
    ],
)  # fmt: skip
def test_region_precedence(
    aws_env: pytest.MonkeyPatch,
    profile_region: None,
    flag: str | None,
    env: dict[str, str],
    expected: tuple[str, str],
) -> None:
    for name, value in env.items():
        aws_env.setenv(name, value)
    region = resolve_region(make_session(None), flag, dict(os.environ))
    assert (region.name, region.source) == expected


def test_no_region_and_a_bad_region_are_setup_errors(aws_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(SetupError, match="no AWS region"):
        resolve_region(make_session(None), None, {})
    with pytest.raises(SetupError, match="invalid AWS region 'us-east1' \\(from AWS_REGION\\)"):
        resolve_region(make_session(None), None, {"AWS_REGION": "us-east1"})
    with pytest.raises(SetupError, match="profile 'nobody' not found"):
        make_session("nobody")


class Recorder:
    """botocore `before-send` hook: records the request, answers with a canned response."""

    def __init__(self, answers: dict[str, tuple[int, dict[str, str], bytes]]) -> None:
        self.answers = answers  # host prefix -> (status, headers, body)
        self.sent: list[AWSPreparedRequest] = []

    def __call__(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        self.sent.append(request)
        host = request.url.split("/")[2]
        status, headers, body = next(v for k, v in self.answers.items() if host.startswith(k))
        return AWSResponse(request.url, status, headers, CannedBody(body))

    def scope(self, index: int) -> list[str]:
        """The SigV4 credential of request `index`: key id, date, region, service, terminator."""
        auth = self.sent[index].headers["Authorization"].decode()
        return auth.split("Credential=", 1)[1].split(",", 1)[0].split("/")


class CannedBody:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


def denied(action: str) -> tuple[int, dict[str, str], bytes]:
    message = f"User: arn:aws:iam::123456789012:user/ci is not authorized to perform: {action}"
    body = json.dumps({"message": message}).encode()
    return 403, {"x-amzn-ErrorType": f"AccessDeniedException:{CORAL}"}, body


DESCRIBE_STACKS = """<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
<DescribeStacksResult><Stacks><member><StackName>{stack}</StackName>
<StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime>
<Outputs><member><OutputKey>{key}</OutputKey><OutputValue>{value}</OutputValue></member></Outputs>
</member></Stacks></DescribeStacksResult></DescribeStacksResponse>"""


def test_clients_go_to_the_regional_aws_hosts_of_aws_region_alone(
    aws_env: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only AWS_REGION is set (botocore alone would not read it): CloudFormation, SageMaker
    Runtime and AgentCore are each called at their eu-west-2 host, signed for eu-west-2."""
    aws_env.setenv("AWS_REGION", "eu-west-2")
    stack_xml = DESCRIBE_STACKS.format(stack="KokoroVoice-Tts", key="EndpointName", value=ENDPOINT)
    recorder = Recorder(
        {
            "cloudformation.": (200, {}, stack_xml.encode()),
            "runtime.sagemaker.": denied("sagemaker:InvokeEndpoint"),
            "bedrock-agentcore.": denied("bedrock-agentcore:InvokeAgentRuntime"),
        }
    )
    session = make_session(None)
    session.events.register("before-send", recorder)
    monkeypatch.setattr(cli, "make_session", lambda profile: session)
    argv = ["--runtime-arn", RUNTIME_ARN, "--app-dir", str(Path(__file__).parents[2])]
    plan = cli.build_plan(cli.build_parser().parse_args(argv), dict(os.environ))
    assert plan.endpoint_name == ENDPOINT  # parsed from the stack's output
    invoke = run_invoke_check(plan.client("sagemaker-runtime"), ENDPOINT, None, 5)
    agent = run_agent_check(plan.client("bedrock-agentcore"), RUNTIME_ARN, "hi", None, 5)

    assert [r.url for r in recorder.sent] == [
        "https://cloudformation.eu-west-2.amazonaws.com/",
        f"https://runtime.sagemaker.eu-west-2.amazonaws.com/endpoints/{ENDPOINT}/invocations",
        f"https://bedrock-agentcore.eu-west-2.amazonaws.com/runtimes/"
        f"{quote(RUNTIME_ARN, safe='')}/invocations",
    ]
    assert [recorder.scope(i)[2:4] for i in range(3)] == [
        ["eu-west-2", "cloudformation"],
        ["eu-west-2", "sagemaker"],
        ["eu-west-2", "bedrock-agentcore"],
    ]
    assert {recorder.scope(i)[0] for i in range(3)} == {KEY_ID}
    assert invoke.diagnosis is not None and agent.diagnosis is not None
    assert "missing permission sagemaker:InvokeEndpoint " in invoke.diagnosis.summary
    assert "missing permission bedrock-agentcore:InvokeAgentRuntime " in agent.diagnosis.summary


def test_a_failed_call_is_not_retried(aws_env: pytest.MonkeyPatch) -> None:
    """One attempt: the diagnosis shows the first failure as it is, and in `timeout_s`."""
    recorder = Recorder(
        {"runtime.sagemaker.": (500, {"x-amzn-ErrorType": f"InternalFailure:{CORAL}"}, b"{}")}
    )
    plan = cli.Plan(
        session=make_session(None),
        region=resolve_region(make_session(None), "us-east-1", {}),
        endpoint_name=ENDPOINT,
        runtime_arn=None,
        voice=None,
        prompt="hi",
        timeout_s=5,
    )
    client = plan.client("sagemaker-runtime")
    client.meta.events.register("before-send", recorder)
    result = run_invoke_check(client, ENDPOINT, None, 5)
    assert len(recorder.sent) == 1
    assert result.diagnosis is not None and result.diagnosis.cause is Cause.UNEXPECTED
    assert "InternalFailure (HTTP 500)" in result.diagnosis.summary

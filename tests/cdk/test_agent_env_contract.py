"""The agent runtime's environment, as synthesized, read by the agent's own settings loaders.

The CDK stack writes environment variables and the agent reads them; a variable renamed or
dropped on either side only showed up on AWS. Here the template's values (tokens resolved to
plausible deploy-time values) go through the agent's real loaders.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import boto3
import pytest

from voice_agent.llm import text_source_from_env
from voice_agent.settings import AgentSettings

from .conftest import AGENT, Synthesized

# What CloudFormation substitutes at deploy time for the pseudo parameters the template uses.
DEPLOY_TIME = {
    "AWS::Region": "eu-west-1",
    "AWS::AccountId": "123456789012",
    "AWS::Partition": "aws",
}


def resolve(value: Any) -> str:
    """A template value as the container sees it; unknown intrinsics fail the test."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and list(value) == ["Ref"] and value["Ref"] in DEPLOY_TIME:
        return DEPLOY_TIME[value["Ref"]]
    if isinstance(value, dict) and list(value) == ["Fn::Join"]:
        separator, parts = value["Fn::Join"]
        return separator.join(resolve(part) for part in parts)
    raise AssertionError(f"cannot resolve {value!r} to a deploy-time value")


@pytest.fixture(scope="module")
def runtime_env(synthesized: Synthesized) -> dict[str, str]:
    runtime = synthesized.only(AGENT, "AWS::BedrockAgentCore::Runtime")["Properties"]
    return {name: resolve(value) for name, value in runtime["EnvironmentVariables"].items()}


def test_agent_settings_read_region_endpoint_and_voice_from_the_template(
    runtime_env: dict[str, str],
) -> None:
    settings = AgentSettings.from_env(runtime_env)
    # The stack's own region (a Ref resolved at deploy time), not a region typed into the stack.
    assert settings.region == DEPLOY_TIME["AWS::Region"]
    assert settings.tts_endpoint_name == "kokoro-voice-tts"
    assert settings.tts_url is None  # SageMaker transport in AWS, never a local WebSocket
    assert settings.default_voice == "af_heart"


def test_boto3_in_the_runtime_sees_the_region(
    runtime_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # botocore reads AWS_DEFAULT_REGION (and config files), not AWS_REGION: the container's
    # environment must carry it for any boto3 client the agent or its libraries create.
    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    for name, value in runtime_env.items():
        monkeypatch.setenv(name, value)
    assert boto3.session.Session().region_name == "eu-west-1"


def test_text_source_reads_the_bedrock_model_id_from_the_template(
    runtime_env: dict[str, str],
) -> None:
    source = text_source_from_env(runtime_env)
    assert source.model_id == "us.anthropic.claude-haiku-4-5-20251001-v1:0"


def test_resolver_refuses_what_it_cannot_resolve() -> None:
    with pytest.raises(AssertionError, match="cannot resolve"):
        resolve({"Fn::GetAtt": ["Something", "Arn"]})

"""The agent's region: AWS_REGION, then AWS_DEFAULT_REGION, passed explicitly to every AWS
client; without one the agent refuses to start, unless it runs locally (TTS_URL + replay)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kokoro_stream.sagemaker import SageMakerBidiTts

from voice_agent.settings import AgentSettings
from voice_agent.wiring import tts_transport

DEPLOYED = {"TTS_ENDPOINT_NAME": "kokoro", "BEDROCK_MODEL_ID": "eu.anthropic.claude-test-v1:0"}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "us-west-2"}, "eu-central-1"),
        ({"AWS_DEFAULT_REGION": "us-west-2"}, "us-west-2"),
        ({"AWS_REGION": " ", "AWS_DEFAULT_REGION": "ap-northeast-1"}, "ap-northeast-1"),
    ],
)
def test_region_precedence_reaches_the_sagemaker_transport(
    env: dict[str, str], expected: str
) -> None:
    settings = AgentSettings.from_env({**DEPLOYED, **env})
    assert settings.region == expected
    transport = tts_transport(settings)
    assert isinstance(transport, SageMakerBidiTts) and transport.region == expected


@pytest.mark.parametrize(
    "env",
    [
        DEPLOYED,  # SageMaker TTS and Bedrock
        {"TTS_URL": "ws://127.0.0.1:1/x", "BEDROCK_MODEL_ID": "m"},  # Bedrock only
        {"TTS_ENDPOINT_NAME": "kokoro", "AGENT_TEXT_SOURCE": "replay"},  # SageMaker only
    ],
)
def test_no_region_is_refused_when_an_aws_service_is_used(env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"no AWS region configured: set AWS_REGION"):
        AgentSettings.from_env(env)


def test_a_local_run_needs_no_region() -> None:
    settings = AgentSettings.from_env(
        {"TTS_URL": "ws://127.0.0.1:1/x", "AGENT_TEXT_SOURCE": "replay"}
    )
    assert settings.region is None


def test_sagemaker_transport_constructor_finds_a_region_like_boto3(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`SageMakerBidiTts(name, region=...)` is also built by tools (bench, smoke check)."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ValueError, match="no AWS region configured"):
        SageMakerBidiTts("kokoro")
    (tmp_path / ".aws").mkdir()
    (tmp_path / ".aws" / "config").write_text("[default]\nregion = sa-east-1\n")
    assert SageMakerBidiTts("kokoro").region == "sa-east-1"  # the profile's, last
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert SageMakerBidiTts("kokoro").region == "eu-west-1"
    monkeypatch.setenv("AWS_REGION", "eu-north-1")
    assert SageMakerBidiTts("kokoro").region == "eu-north-1"
    assert SageMakerBidiTts("kokoro", region="us-east-1").region == "us-east-1"


def test_the_agent_process_refuses_to_start_without_a_region(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(DEPLOYED, HOME=str(tmp_path))
    env.update(HOST="127.0.0.1", PORT="0")
    done = subprocess.run(
        [sys.executable, "-m", "voice_agent"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,  # the old agent started and served: this would expire
    )
    assert done.returncode != 0
    assert "voice_agent: cannot start: no AWS region configured" in done.stderr
    assert "Traceback" not in done.stderr

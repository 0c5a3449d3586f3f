"""Check 3 (InvokeAgentRuntime) through the boto3 client the smoke check builds, against the
real voice agent (replayed answer) and the real Kokoro server behind the AgentCore front-door
stand-in, and the failures it must diagnose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.loopback import AppServer
from smoke.agent_runtime import PROMPT, run_agent_check
from smoke.diagnosis import Cause
from tests.support.aws_front import AwsFront, signed_with
from tests.support.listeners import SilentListener
from tests.support.smoke_results import diagnosed, passed_timings
from tests.support.smoke_world import KEY_ID, REGION, RUNTIME_ARN, front_client
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

pytestmark = pytest.mark.model


def agentcore_client(aws_env: pytest.MonkeyPatch, url: str, timeout_s: float = 60.0) -> Any:
    return front_client(aws_env, "bedrock-agentcore", url, timeout_s)


def test_one_invocation_streams_audio_from_the_real_agent(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    result = run_agent_check(agentcore_client(aws_env, front_url), RUNTIME_ARN, PROMPT, None, 60)
    first_audio_ms, total_ms = passed_timings(result)
    assert 0 < first_audio_ms < total_ms
    assert result.detail.startswith("2 sentences, ")
    # What boto3 really sent: AgentCore's path with the ARN escaped, the payload, SigV4 for
    # the region and the `bedrock-agentcore` signing name.
    (sent,) = front.requests
    assert sent.raw_path == f"/runtimes/{quote(RUNTIME_ARN, safe='')}/invocations"
    assert json.loads(sent.body) == {"prompt": PROMPT, "mode": "stream", "format": "pcm"}
    assert signed_with(sent) == {"key_id": KEY_ID, "region": REGION, "service": "bedrock-agentcore"}


def test_access_denied_names_the_missing_action(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    front.fail_with(
        "agent",
        403,
        "AccessDeniedException",
        "User: arn:aws:sts::123456789012:assumed-role/Dev/alice is not authorized to perform: "
        f"bedrock-agentcore:InvokeAgentRuntime on resource: {RUNTIME_ARN} with an explicit "
        "deny in a service control policy",
    )
    result = run_agent_check(agentcore_client(aws_env, front_url), RUNTIME_ARN, PROMPT, None, 60)
    diagnosis = diagnosed(result, Cause.ACCESS_DENIED)
    assert "missing permission bedrock-agentcore:InvokeAgentRuntime" in diagnosis.summary
    assert "explicit deny (in a service control policy)" in diagnosis.advice


def test_unknown_runtime_is_not_found(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    front.fail_with("agent", 404, "ResourceNotFoundException", "No agent runtime found")
    result = run_agent_check(agentcore_client(aws_env, front_url), RUNTIME_ARN, PROMPT, None, 60)
    diagnosis = diagnosed(result, Cause.NOT_FOUND)
    assert RUNTIME_ARN in diagnosis.summary


@pytest.fixture
def agent_without_tts(front_url: str) -> Iterator[str]:
    """A second front whose agent's TTS port refuses connections (nothing listens there)."""
    with SilentListener() as closed:
        port = closed.port
    app = create_agent_app(
        AgentSettings(),
        ReplayedAnswerSource("Hello there. Nobody will hear this.", tokens_per_s=80),
        WebSocketTts(f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"),
    )
    with AppServer(app) as agent:
        front = AwsFront(kokoro_url=None, agent_url=agent.http)
        with AppServer(front.app) as running:
            yield running.http


def test_the_agents_own_error_event_is_reported(
    aws_env: pytest.MonkeyPatch, agent_without_tts: str
) -> None:
    client = agentcore_client(aws_env, agent_without_tts)
    result = run_agent_check(client, RUNTIME_ARN, PROMPT, None, 60)
    diagnosis = diagnosed(result, Cause.AGENT_ERROR)
    assert "the agent answered with error tts_" in diagnosis.summary


def test_a_runtime_that_never_answers_is_no_response(aws_env: pytest.MonkeyPatch) -> None:
    with SilentListener() as silent:
        client = agentcore_client(aws_env, f"http://127.0.0.1:{silent.port}", timeout_s=1.0)
        result = run_agent_check(client, RUNTIME_ARN, PROMPT, None, 1.0)
        assert silent.accepted == 1
    diagnosed(result, Cause.NO_RESPONSE)

"""The client README's snippets run as written: the local one against the real Kokoro server
on loopback, the SageMaker one through the SDK-typed stream relayed to that server (AWS is not
reachable), and the agent one through a loopback AgentCore front door to the real agent,
after its call is checked against botocore's own service model."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import botocore.session
import kokoro_stream.sagemaker
import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.loopback import AppServer
from tests.support.aws_doubles import WebSocketBridgedSageMakerClient, fake_aws_env
from tests.support.aws_front import AwsFront
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

README = Path(__file__).parents[2] / "clients" / "kokoro_stream" / "README.md"
LOCAL_URL = "ws://127.0.0.1:8080/invocations-bidirectional-stream"
ANSWER = "Kokoro is a small text-to-speech model. It speaks as the answer streams."


def snippet(name: str) -> str:
    """The python block after `<!-- snippet: name -->` in the README."""
    found = re.search(
        rf"<!-- snippet: {name} -->\s*```python\n(.*?)```", README.read_text(), re.DOTALL
    )
    assert found, f"README has no snippet {name!r}"
    return found.group(1)


def run(code: str) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "__main__"})


@pytest.fixture
def fake_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Fake keys, no config files, no instance metadata; the snippets write in tmp_path."""
    fake_aws_env(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def spoken(tmp_path: Path, out: str) -> int:
    """Bytes of PCM the snippet wrote; its printed sentences must be the text's."""
    assert "0 Hello there." in out and "error" not in out, out
    return (tmp_path / "answer.pcm").stat().st_size


@pytest.mark.model
def test_the_local_snippet_speaks_with_the_real_server(
    server: ThreadedServer, fake_aws: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    code = snippet("local")
    assert LOCAL_URL in code  # what `make tts-server` serves
    run(code.replace(LOCAL_URL, server.ws))
    out = capsys.readouterr().out
    assert spoken(tmp_path, out) > 24_000  # over half a second of 24 kHz PCM
    assert "voices: [" in out and "'jf_alpha'" in out


@pytest.mark.model
def test_the_sagemaker_snippet_streams_through_the_sdks_stream_types(
    server: ThreadedServer, fake_aws: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    bridge = WebSocketBridgedSageMakerClient(server.ws)

    async def bridged_client(region: str, **_: object) -> WebSocketBridgedSageMakerClient:
        assert region == "us-east-1"
        return bridge

    fake_aws.setattr(kokoro_stream.sagemaker, "build_sagemaker_client", bridged_client)
    run(snippet("sagemaker"))
    assert spoken(tmp_path, capsys.readouterr().out) > 24_000
    assert bridge.endpoints == ["kokoro-tts"]


def agent_call(code: str) -> ast.Call:
    calls = [
        node
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "invoke_agent_runtime"
    ]
    assert len(calls) == 1, "the agent snippet calls invoke_agent_runtime once"
    return calls[0]


def test_the_agent_snippet_calls_the_operation_botocore_knows() -> None:
    code = snippet("agent")
    assert 'boto3.client("bedrock-agentcore"' in code
    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    operation = model.operation_model("InvokeAgentRuntime")
    given = {k.arg for k in agent_call(code).keywords}
    assert given <= set(operation.input_shape.members), given - set(operation.input_shape.members)
    assert set(operation.input_shape.required_members) <= given
    assert 'response["response"]' in code and "response" in operation.output_shape.members


@pytest.fixture(scope="module")
def agentcore_front(server: ThreadedServer) -> Iterator[str]:
    """AgentCore's front door on loopback, in front of the real agent and the real server."""
    agent = create_agent_app(
        AgentSettings(), ReplayedAnswerSource(ANSWER, tokens_per_s=400), WebSocketTts(server.ws)
    )
    with AppServer(agent) as running_agent:
        front = AwsFront(kokoro_url=None, agent_url=running_agent.http)
        with AppServer(front.app) as running:
            yield running.http


@pytest.mark.model
def test_the_agent_snippet_reads_the_agents_stream(
    agentcore_front: str, fake_aws: pytest.MonkeyPatch, capsys
) -> None:
    fake_aws.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE", agentcore_front)
    run(snippet("agent"))
    out = capsys.readouterr().out
    assert ANSWER in out, out
    assert "'type': 'done'" in out and "'audio_bytes': 0," not in out, out

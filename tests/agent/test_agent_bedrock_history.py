"""The Bedrock path sends the conversation as the Strands agent's messages: the real
StrandsBedrockSource, built from the environment as in production, against BedrockDouble (a
test double of ConverseStream on 127.0.0.1, reached through AWS_ENDPOINT_URL_BEDROCK_RUNTIME);
what its boto3 client sent is checked as it arrived."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.support.bedrock_double import BedrockDouble
from voice_agent.conversation import History, Turn
from voice_agent.llm import INTERRUPTED_NOTE, SYSTEM_PROMPT
from voice_agent.settings import AgentSettings

MODEL_ID = "anthropic.claude-test-v1:0"
ACCESS_KEY = "AKIDVOICEAGENTTEST"
# What the agent stack sets (AWS_REGION comes from the runtime).
PRODUCTION_ENV = {"BEDROCK_MODEL_ID": MODEL_ID, "AWS_REGION": "us-east-1"}


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch, tmp_path) -> Iterator[BedrockDouble]:
    with BedrockDouble(["It is on its way. It arrives Thursday."]) as double:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
        monkeypatch.setenv("AWS_REGION", "us-east-1")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", double.url)
        yield double


async def test_the_history_goes_to_bedrock_as_messages_before_the_prompt(
    bedrock: BedrockDouble,
) -> None:
    source = AgentSettings.from_env(PRODUCTION_ENV).text_source()
    history = History(
        (
            Turn("Where is my order?", "Thanks for calling.", interrupted=True),
            Turn("Is it late?", "No, it is on time.", interrupted=False),
        ),
        number=2,
    )
    deltas = [d async for d in source.stream("Can it come sooner?", history)]
    assert "".join(deltas) == "It is on its way. It arrives Thursday."
    [request] = bedrock.requests
    assert request.path == f"/model/{quote(MODEL_ID, safe='')}/converse-stream"  # ':' as %3A
    assert f"Credential={ACCESS_KEY}/" in request.authorization
    assert "/us-east-1/bedrock/aws4_request" in request.authorization
    assert request.body["system"] == [{"text": SYSTEM_PROMPT}]
    assert request.body["messages"] == [
        {"role": "user", "content": [{"text": "Where is my order?"}]},
        {"role": "assistant", "content": [{"text": f"Thanks for calling. {INTERRUPTED_NOTE}"}]},
        {"role": "user", "content": [{"text": "Is it late?"}]},
        {"role": "assistant", "content": [{"text": "No, it is on time."}]},
        {"role": "user", "content": [{"text": "Can it come sooner?"}]},
    ]


async def test_without_history_only_the_prompt_is_sent(bedrock: BedrockDouble) -> None:
    source = AgentSettings.from_env(PRODUCTION_ENV).text_source()
    assert [d async for d in source.stream("Hello?")]
    assert bedrock.requests[0].body["messages"] == [
        {"role": "user", "content": [{"text": "Hello?"}]}
    ]

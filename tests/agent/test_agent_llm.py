"""Text sources: ReplayedAnswerSource (rate, content, naming), env selection, and the Strands
source driven through a real strands Agent with a scripted model (Bedrock is not reachable)."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from strands.models.model import Model

from tests.support.aws_doubles import BotocoreRecorder, sigv4_credential
from voice_agent.app import create_app
from voice_agent.llm import (
    DEFAULT_REPLAY_ANSWER,
    DEFAULT_SCRIPT,
    SYSTEM_PROMPT,
    ReplayedAnswerSource,
    ScriptedConversationSource,
    StrandsBedrockSource,
    replay_tokens,
)
from voice_agent.settings import AgentSettings
from voice_agent.wiring import tts_transport


def _source_from_env(env: dict[str, str]) -> Any:
    return AgentSettings.from_env(env).text_source()


async def test_replay_yields_the_answer_at_the_configured_rate() -> None:
    answer = "One two three four five six seven eight nine ten."
    source = ReplayedAnswerSource(answer, tokens_per_s=100)
    start = time.perf_counter()
    deltas = [d async for d in source.stream("ignored prompt")]
    elapsed = time.perf_counter() - start
    assert "".join(deltas) == answer
    assert len(deltas) == 10
    assert 0.09 <= elapsed < 0.5  # 10 tokens at 100 tokens/s
    assert source.describe() == "ReplayedAnswerSource (replays a given answer at 100 tokens/s)"


def test_tokens_rejoin_to_the_text_and_long_runs_are_cut() -> None:
    for text in [DEFAULT_REPLAY_ANSWER, "こんにちは。今日はいい天気ですね。", "  a\n\nb  "]:
        assert "".join(replay_tokens(text)) == text
    assert max(len(t.strip()) for t in replay_tokens("x" * 50)) <= 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"answer": "  "}, "non-empty answer"),
        ({"tokens_per_s": 0}, "tokens_per_s must be > 0"),
        ({"first_token_delay_s": -1}, "first_token_delay_s must be >= 0"),
    ],
)
def test_replay_rejects_bad_settings(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ReplayedAnswerSource(**kwargs)


def test_env_selects_the_source(tmp_path) -> None:
    src = _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_TOKENS_PER_S": "25"})
    assert isinstance(src, ScriptedConversationSource) and src.tokens_per_s == 25
    assert src.answers == DEFAULT_SCRIPT and src.answers[0] == DEFAULT_REPLAY_ANSWER
    src = _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_TEXT": "Just this."})
    assert isinstance(src, ReplayedAnswerSource) and src.answer == "Just this."
    f = tmp_path / "answer.txt"
    f.write_text("From a file.", encoding="utf-8")
    src = _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_FILE": str(f)})
    assert isinstance(src, ReplayedAnswerSource) and src.answer == "From a file."
    f.write_text("First answer.\n---\nSecond answer,\n\non two lines.\n", encoding="utf-8")
    src = _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_FILE": str(f)})
    assert src.answers == ("First answer.", "Second answer,\n\non two lines.")
    f.write_text("First answer.\n---\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="non-empty answers between '---' lines"):
        _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_FILE": str(f)})
    with pytest.raises(ValueError, match="BEDROCK_MODEL_ID is not set"):
        _source_from_env({"AWS_REGION": "us-east-1"})
    with pytest.raises(ValueError, match="must be 'bedrock' or 'replay'"):
        _source_from_env({"AGENT_TEXT_SOURCE": "gpt"})
    with pytest.raises(ValueError, match="AGENT_REPLAY_TOKENS_PER_S must be a number"):
        _source_from_env({"AGENT_TEXT_SOURCE": "replay", "AGENT_REPLAY_TOKENS_PER_S": "x"})
    bedrock = _source_from_env(
        {"BEDROCK_MODEL_ID": "anthropic.claude-test", "AWS_REGION": "us-east-1"}
    )
    assert bedrock.describe() == "StrandsBedrockSource (Bedrock model anthropic.claude-test)"


class ScriptedModel(Model):
    """A strands Model test double streaming Bedrock ConverseStream-shaped events."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.system_prompts: list[str | None] = []

    def update_config(self, **model_config: Any) -> None:
        return None

    def get_config(self) -> dict[str, Any]:
        return {"model_id": "scripted"}

    def structured_output(  # pragma: no cover
        self, *args: Any, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError  # only `stream` is used

    async def stream(
        self, messages, tool_specs=None, system_prompt=None, **kwargs
    ) -> AsyncIterator:
        self.system_prompts.append(system_prompt)
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        for piece in self.pieces:
            yield {"contentBlockDelta": {"delta": {"text": piece}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


async def test_strands_source_streams_text_deltas_with_the_speakable_system_prompt() -> None:
    model = ScriptedModel(["Your order ", "shipped. ", "It arrives Thursday."])
    source = StrandsBedrockSource(model_id="scripted", model=model)
    deltas = [d async for d in source.stream("Where is my order?")]
    assert deltas == ["Your order ", "shipped. ", "It arrives Thursday."]
    assert model.system_prompts == [SYSTEM_PROMPT]
    assert "no markdown" in SYSTEM_PROMPT and "emoji" in SYSTEM_PROMPT
    # A fresh Agent per call: a second invocation works with the same source.
    assert [d async for d in source.stream("again")] == deltas


def test_agent_settings_from_env() -> None:
    from kokoro_stream.sagemaker import SageMakerBidiTts
    from kokoro_stream.websocket import WebSocketTts

    region = {"AWS_REGION": "eu-central-1"}
    s = AgentSettings.from_env({"TTS_ENDPOINT_NAME": "kokoro", "TTS_VOICE": "af_heart", **region})
    assert s.default_voice == "af_heart"  # the variable the agent stack sets
    assert isinstance(tts_transport(s), SageMakerBidiTts)
    url = "ws://127.0.0.1:1/invocations-bidirectional-stream"
    local = {"AGENT_TEXT_SOURCE": "replay"}
    s = AgentSettings.from_env({"TTS_URL": url, "TTS_ENDPOINT_NAME": "kokoro", **local})
    assert isinstance(tts_transport(s), WebSocketTts)  # TTS_URL wins for local runs
    with pytest.raises(ValueError, match="set TTS_URL"):
        tts_transport(AgentSettings.from_env(region))
    with pytest.raises(ValueError, match="ws:// or wss://"):
        tts_transport(AgentSettings.from_env({"TTS_URL": "http://x", **local}))
    with pytest.raises(ValueError, match="AGENT_SAMPLE_RATE"):
        AgentSettings.from_env({"AGENT_SAMPLE_RATE": "fast"})


MODEL_ID = "eu.anthropic.claude-test-v1:0"


async def test_bedrock_model_is_signed_for_the_agents_region(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """The real Strands BedrockModel the agent builds, observed through botocore's
    before-send hook: AWS_REGION (the agent's documented first choice) decides, even where
    AWS_DEFAULT_REGION names another region (boto3 alone would pick that one)."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    env = {
        "AWS_REGION": "eu-central-1",
        "AWS_DEFAULT_REGION": "us-west-2",
        "AWS_ACCESS_KEY_ID": "AKIABEDROCKTEST",
        "AWS_SECRET_ACCESS_KEY": "bedrock-secret",
        "AGENT_TEXT_SOURCE": "bedrock",
        "BEDROCK_MODEL_ID": MODEL_ID,
        "TTS_ENDPOINT_NAME": "kokoro",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pipeline = create_app().state.pipeline
    assert pipeline.tts.region == "eu-central-1"  # the SageMaker client gets the same region
    recorder = BotocoreRecorder()
    model = pipeline.text_source._model
    model.client.meta.events.register("before-send.bedrock-runtime.ConverseStream", recorder)
    with pytest.raises(Exception, match="AccessDenied"):
        async for _ in pipeline.text_source.stream("Where is my order?"):
            pass
    [sent] = recorder.sent
    url = urlparse(sent.url)
    assert url.hostname == "bedrock-runtime.eu-central-1.amazonaws.com"
    assert unquote(url.path) == f"/model/{MODEL_ID}/converse-stream"
    credential = sigv4_credential(sent.headers["authorization"])
    assert credential.access_key_id == "AKIABEDROCKTEST"
    assert (credential.region, credential.service) == ("eu-central-1", "bedrock")


def test_bedrock_source_refuses_to_guess_a_region() -> None:
    with pytest.raises(ValueError, match="needs a region"):
        StrandsBedrockSource(model_id=MODEL_ID)
    with pytest.raises(ValueError, match="needs a region"):
        AgentSettings(bedrock_model_id=MODEL_ID).text_source()


def test_one_from_env_sets_the_bind_address_and_every_pipeline_timeout() -> None:
    env = {
        "TTS_URL": "ws://127.0.0.1:1/invocations-bidirectional-stream",
        "AGENT_TEXT_SOURCE": "replay",
        "AGENT_TTS_CONNECT_TIMEOUT_S": "3",
        "AGENT_TTS_IDLE_TIMEOUT_S": "4",
        "AGENT_LLM_IDLE_TIMEOUT_S": "5",
        "AGENT_MAX_TURNS": "6",
        "AGENT_MAX_CONVERSATIONS": "7",
        "HOST": "127.0.0.1",
        "PORT": "9001",
    }
    settings = AgentSettings.from_env(env)
    assert (settings.host, settings.port) == ("127.0.0.1", 9001)
    app = create_app(settings)
    pipeline = app.state.pipeline
    assert (pipeline.connect_timeout_s, pipeline.tts_idle_timeout_s) == (3.0, 4.0)
    assert pipeline.llm_idle_timeout_s == 5.0
    assert isinstance(pipeline.text_source, ScriptedConversationSource)
    conversations = app.state.conversations
    assert (conversations.max_turns, conversations.max_conversations) == (6, 7)
    for name in ("AGENT_MAX_TURNS", "AGENT_MAX_CONVERSATIONS"):
        with pytest.raises(ValueError, match=f"{name} must be at least 1, got 0"):
            AgentSettings.from_env({**env, name: "0"})
        with pytest.raises(ValueError, match=f"{name} must be a number"):
            AgentSettings.from_env({**env, name: "many"})
    with pytest.raises(ValueError, match="AGENT_LLM_IDLE_TIMEOUT_S must be a number"):
        AgentSettings.from_env({**env, "AGENT_LLM_IDLE_TIMEOUT_S": "soon"})
    with pytest.raises(ValueError, match="PORT must be a number"):
        AgentSettings.from_env({**env, "PORT": "http"})

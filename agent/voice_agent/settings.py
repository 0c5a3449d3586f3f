"""Agent configuration: every setting read from the environment in one place (docs/agent.md).

`AgentSettings.from_env(env)` reads the TTS target, the region (AWS_REGION, then
AWS_DEFAULT_REGION; refused when missing and an AWS service is used), the text source (Bedrock
or a scripted conversation), the conversation bounds, the bind address and every timeout.
Plain data: the TTS transport the settings name is built by `wiring.tts_transport`, so this
module imports no transport (and no transport imports it); `text_source()` and
`conversations()` build the agent's own parts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kokoro_stream.messages import DEFAULT_SAMPLE_RATE
from kokoro_stream.region import region_from_env

from .conversation import ConversationStore
from .llm import (
    DEFAULT_SCRIPT,
    ReplayedAnswerSource,
    ScriptedConversationSource,
    StrandsBedrockSource,
    TextSource,
    read_script,
)
from .origins import ALLOWED_ORIGINS_ENV, OriginPolicy

TEXT_SOURCES = ("bedrock", "replay")

VOICE_PAUSED_MESSAGE = (
    "the voice is paused: the TTS endpoint was taken down to stop its hourly cost "
    "(deployed with -c voice_paused=true). Resume it by deploying without voice_paused "
    "(docs/deploy.md, Pause and resume); it takes about 10 minutes to come back"
)

NO_REGION = (
    "no AWS region configured: set AWS_REGION (or AWS_DEFAULT_REGION). The SageMaker endpoint "
    "and Bedrock are called in that region; only a local run (TTS_URL with "
    "AGENT_TEXT_SOURCE=replay) needs none"
)


@dataclass(frozen=True)
class AgentSettings:
    # TTS: a container's WebSocket (tts_url wins) or a SageMaker endpoint.
    tts_url: str | None = None
    tts_endpoint_name: str | None = None
    # The stack deployed no endpoint (voice paused): every turn answers `voice_paused`.
    voice_paused: bool = False
    region: str | None = None
    default_voice: str | None = None
    sample_rate: int = DEFAULT_SAMPLE_RATE
    # Text: Strands with a Bedrock model, or a scripted conversation replayed at a fixed rate
    # (one given answer, AGENT_REPLAY_TEXT, is a script of one).
    text_source_kind: str = "bedrock"
    bedrock_model_id: str | None = None
    replay_script: tuple[str, ...] = DEFAULT_SCRIPT
    replay_tokens_per_s: float = 40.0
    replay_first_token_s: float = 0.0
    # Timeouts of one invocation (VoicePipeline).
    tts_connect_timeout_s: float = 15.0
    tts_busy_wait_s: float = 2.0  # waiting out the TTS's `busy` (admission.py); 0: never
    tts_idle_timeout_s: float = 30.0  # silence from the TTS after `close` was sent
    llm_idle_timeout_s: float = 120.0  # silence from the TTS while the text source still talks
    # Conversations kept in memory (docs/agent.md has the memory this takes at most).
    max_turns: int = 20  # per conversation: the oldest turn goes first
    max_conversations: int = 100  # the least recently used idle one goes first
    # `python -m voice_agent`: the runtime reaches the container on 0.0.0.0:8080.
    host: str = "0.0.0.0"  # noqa: S104
    port: int = 8080
    # Web pages allowed to drive the agent (origins.py): loopback ones unless widened.
    origins: OriginPolicy = field(default_factory=OriginPolicy)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AgentSettings:
        """Raises ValueError with a clear message for a bad value or a missing region."""
        env = dict(os.environ if env is None else env)
        kind = env.get("AGENT_TEXT_SOURCE", "bedrock").strip().lower()
        if kind not in TEXT_SOURCES:
            raise ValueError(f"AGENT_TEXT_SOURCE must be 'bedrock' or 'replay', got {kind!r}")
        script: tuple[str, ...] = DEFAULT_SCRIPT
        if env.get("AGENT_REPLAY_TEXT"):
            script = (env["AGENT_REPLAY_TEXT"],)
        if kind == "replay" and env.get("AGENT_REPLAY_FILE"):
            text = Path(env["AGENT_REPLAY_FILE"]).read_text(encoding="utf-8")
            script = tuple(read_script(text))
        settings = cls(
            tts_url=env.get("TTS_URL") or None,
            tts_endpoint_name=env.get("TTS_ENDPOINT_NAME") or None,
            voice_paused=_flag(env, "TTS_PAUSED"),
            region=region_from_env(env),
            default_voice=env.get("TTS_VOICE") or env.get("AGENT_DEFAULT_VOICE") or None,
            sample_rate=_number(env, "AGENT_SAMPLE_RATE", DEFAULT_SAMPLE_RATE, int),
            text_source_kind=kind,
            bedrock_model_id=env.get("BEDROCK_MODEL_ID") or None,
            replay_script=script,
            replay_tokens_per_s=_number(env, "AGENT_REPLAY_TOKENS_PER_S", 40.0, float),
            replay_first_token_s=_number(env, "AGENT_REPLAY_FIRST_TOKEN_S", 0.0, float),
            tts_connect_timeout_s=_number(env, "AGENT_TTS_CONNECT_TIMEOUT_S", 15.0, float),
            tts_busy_wait_s=_number(env, "AGENT_TTS_BUSY_WAIT_S", 2.0, float),
            tts_idle_timeout_s=_number(env, "AGENT_TTS_IDLE_TIMEOUT_S", 30.0, float),
            llm_idle_timeout_s=_number(env, "AGENT_LLM_IDLE_TIMEOUT_S", 120.0, float),
            max_turns=_at_least_one(env, "AGENT_MAX_TURNS", cls.max_turns),
            max_conversations=_at_least_one(env, "AGENT_MAX_CONVERSATIONS", cls.max_conversations),
            host=env.get("HOST") or cls.host,
            port=_number(env, "PORT", 8080, int),
            origins=OriginPolicy.parse(env.get(ALLOWED_ORIGINS_ENV, "")),
        )
        if settings.region is None and settings.uses_aws:
            raise ValueError(NO_REGION)
        return settings

    @property
    def uses_aws(self) -> bool:
        """A SageMaker TTS endpoint (TTS_URL unset) or Bedrock text: both need a region."""
        sagemaker_tts = not self.tts_url and bool(self.tts_endpoint_name)
        return sagemaker_tts or self.text_source_kind == "bedrock"

    def text_source(self) -> TextSource:
        """AGENT_TEXT_SOURCE=bedrock (BEDROCK_MODEL_ID) or replay (AGENT_REPLAY_*)."""
        if self.text_source_kind == "replay":
            pacing = {
                "tokens_per_s": self.replay_tokens_per_s,
                "first_token_delay_s": self.replay_first_token_s,
            }
            if len(self.replay_script) == 1:
                return ReplayedAnswerSource(self.replay_script[0], **pacing)
            return ScriptedConversationSource(self.replay_script, **pacing)
        return StrandsBedrockSource(model_id=self.bedrock_model_id, region=self.region)

    def conversations(self) -> ConversationStore:
        return ConversationStore(self.max_conversations, self.max_turns)


def _number[N: (int, float)](env: Mapping[str, str], name: str, default: N, kind: type[N]) -> N:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in ("", "false", "0", "no"):
        return False
    if raw in ("true", "1", "yes"):
        return True
    raise ValueError(f"{name} must be true or false, got {raw!r}")


def _at_least_one(env: Mapping[str, str], name: str, default: int) -> int:
    value = _number(env, name, default, int)
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value

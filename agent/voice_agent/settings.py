"""Agent configuration from environment variables (see docs/agent.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .tts.base import TtsTransport

NO_REGION = (
    "no AWS region configured: set AWS_REGION (or AWS_DEFAULT_REGION). The SageMaker endpoint "
    "and Bedrock are called in that region; only a local run (TTS_URL with "
    "AGENT_TEXT_SOURCE=replay) needs none"
)


def region_from_env(env: dict[str, str] | None = None) -> str | None:
    """AWS_REGION, then AWS_DEFAULT_REGION (docs/agent.md); botocore alone reads only the
    second, so the agent resolves the region itself and passes it to every client."""
    env = os.environ if env is None else env
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if region := env.get(name, "").strip():
            return region
    return None


def _uses_aws(env: dict[str, str]) -> bool:
    sagemaker_tts = not env.get("TTS_URL") and bool(env.get("TTS_ENDPOINT_NAME"))
    bedrock_text = env.get("AGENT_TEXT_SOURCE", "bedrock").strip().lower() == "bedrock"
    return sagemaker_tts or bedrock_text


@dataclass(frozen=True)
class AgentSettings:
    tts_url: str | None = None
    tts_endpoint_name: str | None = None
    region: str | None = None
    default_voice: str | None = None
    sample_rate: int = 24000
    tts_idle_timeout_s: float = 30.0

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> AgentSettings:
        """Raises ValueError with a clear message for a bad value or a missing region."""
        env = dict(os.environ if env is None else env)
        try:
            sample_rate = int(env.get("AGENT_SAMPLE_RATE", "24000"))
            idle = float(env.get("AGENT_TTS_IDLE_TIMEOUT_S", "30"))
        except ValueError as exc:
            raise ValueError(f"AGENT_SAMPLE_RATE / AGENT_TTS_IDLE_TIMEOUT_S: {exc}") from exc
        region = region_from_env(env)
        if region is None and _uses_aws(env):
            raise ValueError(NO_REGION)
        return cls(
            tts_url=env.get("TTS_URL") or None,
            tts_endpoint_name=env.get("TTS_ENDPOINT_NAME") or None,
            region=region,
            default_voice=env.get("TTS_VOICE") or env.get("AGENT_DEFAULT_VOICE") or None,
            sample_rate=sample_rate,
            tts_idle_timeout_s=idle,
        )

    def tts_transport(self) -> TtsTransport:
        """TTS_URL selects the WebSocket transport, else TTS_ENDPOINT_NAME selects SageMaker."""
        if self.tts_url:
            from .tts.websocket import WebSocketTts

            return WebSocketTts(self.tts_url)
        if self.tts_endpoint_name:
            from .tts.sagemaker import SageMakerBidiTts

            return SageMakerBidiTts(self.tts_endpoint_name, region=self.region)
        raise ValueError("set TTS_URL (local container) or TTS_ENDPOINT_NAME (SageMaker)")

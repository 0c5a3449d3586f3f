"""Agent configuration from environment variables (see docs/agent.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .tts.base import TtsTransport


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
        env = dict(os.environ if env is None else env)
        try:
            sample_rate = int(env.get("AGENT_SAMPLE_RATE", "24000"))
            idle = float(env.get("AGENT_TTS_IDLE_TIMEOUT_S", "30"))
        except ValueError as exc:
            raise ValueError(f"AGENT_SAMPLE_RATE / AGENT_TTS_IDLE_TIMEOUT_S: {exc}") from exc
        return cls(
            tts_url=env.get("TTS_URL") or None,
            tts_endpoint_name=env.get("TTS_ENDPOINT_NAME") or None,
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None,
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

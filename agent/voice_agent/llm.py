"""Text sources: where the agent's answer text comes from, as an async iterator of deltas.

- `StrandsBedrockSource`: Strands Agents with a Bedrock model (AWS).
- `ReplayedAnswerSource`: replays a given answer at a configurable token rate, for local
  runs where no model service is reachable. It is not an LLM and says so in its name.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

SYSTEM_PROMPT = (
    "You are a voice assistant. Everything you write is read aloud by a text-to-speech "
    "engine. Answer in plain, speakable sentences: no markdown, no headings, no bullet or "
    "numbered lists, no tables, no code, no emoji, no URLs. Keep answers short and "
    "conversational, and start with a short first sentence."
)

# The 267-character, 4-sentence paragraph used by the benchmarks (shared/bench_paragraph.txt).
DEFAULT_REPLAY_ANSWER = (
    "Thanks for calling back about your order today. It shipped this morning from our "
    "Denver warehouse and should arrive by Thursday afternoon. If you need to change the "
    "delivery address, I can update it for you right now. Is there anything else I can "
    "help you with today?"
)

_TOKEN = re.compile(r"\s*\S+|\s+")
_MAX_TOKEN_CHARS = 4  # long words / unspaced CJK are cut into token-sized pieces


class TextSource(Protocol):
    def describe(self) -> str: ...

    def stream(self, prompt: str) -> AsyncIterator[str]: ...


def replay_tokens(text: str) -> list[str]:
    """Split text into token-like pieces (a word with its leading space, long words cut)."""
    pieces: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        while len(token.strip()) > _MAX_TOKEN_CHARS + 2:
            lead = len(token) - len(token.lstrip())
            cut = lead + _MAX_TOKEN_CHARS
            pieces.append(token[:cut])
            token = token[cut:]
        pieces.append(token)
    return pieces


class ReplayedAnswerSource:
    """Replays a given answer at a configurable token rate (e.g. 40 tokens/s); not an LLM."""

    def __init__(
        self,
        answer: str = DEFAULT_REPLAY_ANSWER,
        tokens_per_s: float = 40.0,
        first_token_delay_s: float = 0.0,
    ) -> None:
        if not answer.strip():
            raise ValueError("ReplayedAnswerSource needs a non-empty answer")
        if not tokens_per_s > 0:
            raise ValueError(f"tokens_per_s must be > 0, got {tokens_per_s}")
        if first_token_delay_s < 0:
            raise ValueError(f"first_token_delay_s must be >= 0, got {first_token_delay_s}")
        self.answer = answer
        self.tokens_per_s = tokens_per_s
        self.first_token_delay_s = first_token_delay_s
        self._tokens = replay_tokens(answer)

    def describe(self) -> str:
        return f"ReplayedAnswerSource (replays a given answer at {self.tokens_per_s:g} tokens/s)"

    async def stream(self, prompt: str) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        start = loop.time() + self.first_token_delay_s
        for i, token in enumerate(self._tokens):
            # Scheduled against a fixed start so sleep overshoot does not accumulate.
            delay = start + (i + 1) / self.tokens_per_s - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            yield token


def bedrock_model(model_id: str | None, region: str | None) -> Any:
    """The Strands BedrockModel the agent streams from, in an explicit region (Strands would
    otherwise fall back to us-west-2, where the agent may have no Bedrock grant)."""
    if not model_id:
        raise ValueError("BEDROCK_MODEL_ID is not set")
    if not region:
        raise ValueError("the Bedrock text source needs a region: set AWS_REGION")
    from strands.models import BedrockModel

    return BedrockModel(model_id=model_id, region_name=region, streaming=True)


class StrandsBedrockSource:
    """Strands Agents with a Bedrock model, streamed with `Agent.stream_async`."""

    def __init__(
        self, model_id: str | None = None, model: Any = None, region: str | None = None
    ) -> None:
        if model is None:
            model = bedrock_model(model_id, region)
        self.model_id = model_id or getattr(model, "config", {}).get("model_id", "?")
        self._model = model

    def describe(self) -> str:
        return f"StrandsBedrockSource (Bedrock model {self.model_id})"

    async def stream(self, prompt: str) -> AsyncIterator[str]:
        from strands import Agent

        # A fresh Agent per invocation: an Agent holds conversation state and refuses
        # concurrent calls; the model (and its boto3 client) is shared.
        agent = Agent(model=self._model, system_prompt=SYSTEM_PROMPT, callback_handler=None)
        cancel = threading.Event()
        events = agent.stream_async(prompt, cancel_signal=cancel)
        try:
            async for event in events:
                data = event.get("data") if isinstance(event, dict) else None
                if isinstance(data, str) and data:
                    yield data
        finally:
            cancel.set()  # caller went away: stop the model request too
            with contextlib.suppress(Exception):
                await events.aclose()


def text_source_from_env(
    env: dict[str, str] | None = None, region: str | None = None
) -> TextSource:
    """AGENT_TEXT_SOURCE=bedrock (default) or replay; see docs/agent.md. `region` defaults to
    the environment's (AWS_REGION, then AWS_DEFAULT_REGION)."""
    env = dict(os.environ if env is None else env)
    kind = env.get("AGENT_TEXT_SOURCE", "bedrock").strip().lower()
    if kind == "bedrock":
        from .settings import region_from_env

        return StrandsBedrockSource(
            model_id=env.get("BEDROCK_MODEL_ID"), region=region or region_from_env(env)
        )
    if kind == "replay":
        answer = env.get("AGENT_REPLAY_TEXT") or DEFAULT_REPLAY_ANSWER
        if env.get("AGENT_REPLAY_FILE"):
            answer = Path(env["AGENT_REPLAY_FILE"]).read_text(encoding="utf-8")
        try:
            rate = float(env.get("AGENT_REPLAY_TOKENS_PER_S", "40"))
            first = float(env.get("AGENT_REPLAY_FIRST_TOKEN_S", "0"))
        except ValueError as exc:
            raise ValueError(f"AGENT_REPLAY_* must be numbers: {exc}") from exc
        return ReplayedAnswerSource(answer, tokens_per_s=rate, first_token_delay_s=first)
    raise ValueError(f"AGENT_TEXT_SOURCE must be 'bedrock' or 'replay', got {kind!r}")

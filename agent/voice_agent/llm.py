"""Text sources: where the agent's answer text comes from, as an async iterator of deltas.

- `StrandsBedrockSource`: Strands Agents with a Bedrock model (AWS); the conversation so far
  becomes the Strands agent's messages.
- `ScriptedConversationSource`: replays a script of answers, one per turn, at a configurable
  token rate, for local runs where no model service is reachable; `ReplayedAnswerSource` is
  its one-answer form. Neither is an LLM, and their names say so.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Sequence
from typing import Any, Protocol

from .conversation import NO_HISTORY, History, Turn

SYSTEM_PROMPT = (
    "You are a voice assistant. Everything you write is read aloud by a text-to-speech "
    "engine. Answer in plain, speakable sentences: no markdown, no headings, no bullet or "
    "numbered lists, no tables, no code, no emoji, no URLs. Keep answers short and "
    "conversational, and start with a short first sentence."
)

# The 267-character, 4-sentence paragraph of the demo and the benchmarks (devkit.text reads it
# from here: one copy).
DEFAULT_REPLAY_ANSWER = (
    "Thanks for calling back about your order today. It shipped this morning from our "
    "Denver warehouse and should arrive by Thursday afternoon. If you need to change the "
    "delivery address, I can update it for you right now. Is there anything else I can "
    "help you with today?"
)

# The local stack's default script: the benchmark paragraph first (a caller without a
# conversation always gets it), then a second answer for a two-turn conversation.
DEFAULT_SCRIPT = (
    DEFAULT_REPLAY_ANSWER,
    "Of course. I have changed the delivery address to your office. The driver will call you "
    "about half an hour before arriving. Is there anything else?",
)

_TOKEN = re.compile(r"\s*\S+|\s+")
_MAX_TOKEN_CHARS = 4  # long words / unspaced CJK are cut into token-sized pieces


# How the model learns that the caller did not hear all of an earlier answer: the assistant
# message holds only the heard words, followed by this note.
INTERRUPTED_NOTE = "[interrupted: the caller heard only the words before this note]"
NOTHING_HEARD_NOTE = "[interrupted before the caller heard any of this answer]"


class TextSource(Protocol):
    def describe(self) -> str: ...

    def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]: ...


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


async def paced(
    tokens: Iterable[str], tokens_per_s: float, first_token_delay_s: float = 0.0
) -> AsyncIterator[str]:
    """Yield token i at (first_token_delay_s + (i + 1) / tokens_per_s) after the first call."""
    loop = asyncio.get_running_loop()
    start = loop.time() + first_token_delay_s
    for i, token in enumerate(tokens):
        # Scheduled against a fixed start so sleep overshoot does not accumulate.
        delay = start + (i + 1) / tokens_per_s - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        yield token


class ScriptedConversationSource:
    """Replays a script of answers at a configurable token rate (e.g. 40 tokens/s): turn k of
    a conversation gets answer k, and the script starts over after its last one. Not an LLM:
    it ignores the prompt."""

    def __init__(
        self,
        answers: Sequence[str],
        tokens_per_s: float = 40.0,
        first_token_delay_s: float = 0.0,
    ) -> None:
        if not answers or not all(answer.strip() for answer in answers):
            raise ValueError("a scripted conversation needs at least one non-empty answer")
        if not tokens_per_s > 0:
            raise ValueError(f"tokens_per_s must be > 0, got {tokens_per_s}")
        if first_token_delay_s < 0:
            raise ValueError(f"first_token_delay_s must be >= 0, got {first_token_delay_s}")
        self.answers = tuple(answers)
        self.tokens_per_s = tokens_per_s
        self.first_token_delay_s = first_token_delay_s
        self._tokens = [replay_tokens(answer) for answer in self.answers]

    def describe(self) -> str:
        return (
            f"ScriptedConversationSource (replays a script of {len(self.answers)} answers "
            f"at {self.tokens_per_s:g} tokens/s)"
        )

    async def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]:
        tokens = self._tokens[history.number % len(self._tokens)]
        async for token in paced(tokens, self.tokens_per_s, self.first_token_delay_s):
            yield token


class ReplayedAnswerSource(ScriptedConversationSource):
    """A scripted conversation of one answer, given on every turn; not an LLM."""

    def __init__(
        self,
        answer: str = DEFAULT_REPLAY_ANSWER,
        tokens_per_s: float = 40.0,
        first_token_delay_s: float = 0.0,
    ) -> None:
        if not answer.strip():
            raise ValueError("ReplayedAnswerSource needs a non-empty answer")
        super().__init__([answer], tokens_per_s, first_token_delay_s)
        self.answer = answer

    def describe(self) -> str:
        return f"ReplayedAnswerSource (replays a given answer at {self.tokens_per_s:g} tokens/s)"


def read_script(text: str) -> list[str]:
    """A scripted conversation file: the answers in order, separated by lines of `---`."""
    answers = [a.strip() for a in re.split(r"^---[ \t]*$", text, flags=re.MULTILINE)]
    if not answers or not all(answers):
        raise ValueError("a conversation script needs non-empty answers between '---' lines")
    return answers


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

    async def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]:
        from strands import Agent
        from strands.agent.conversation_manager import NullConversationManager

        # A fresh Agent per invocation, its messages the conversation so far: an Agent
        # refuses concurrent calls, and the conversation store (already bounded) is the one
        # copy of the history; the model (and its boto3 client) is shared.
        agent = Agent(
            model=self._model,
            system_prompt=SYSTEM_PROMPT,
            messages=strands_messages(history.turns),
            conversation_manager=NullConversationManager(),
            callback_handler=None,
        )
        cancel = threading.Event()
        events = agent.stream_async(prompt, cancel_signal=cancel)
        try:
            async for event in events:
                data = event.get("data") if isinstance(event, dict) else None
                if isinstance(data, str) and data:
                    yield data
        finally:
            cancel.set()  # caller went away: stop the model request too
            if isinstance(events, AsyncGenerator):
                with contextlib.suppress(Exception):
                    await events.aclose()


def strands_messages(turns: Iterable[Turn]) -> list[Any]:
    """The turns as Bedrock Converse messages (Strands' format): a user message and the
    assistant's heard answer per turn, an interrupted one followed by a note saying so (and
    never empty: Bedrock refuses an empty text block)."""
    messages: list[Any] = []
    for turn in turns:
        answer = turn.answer
        if turn.interrupted:
            answer = f"{answer} {INTERRUPTED_NOTE}" if answer else NOTHING_HEARD_NOTE
        messages.append({"role": "user", "content": [{"text": turn.prompt}]})
        messages.append({"role": "assistant", "content": [{"text": answer}]})
    return messages

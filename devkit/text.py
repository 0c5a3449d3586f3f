"""The one text source of the demo and both benchmarks: an answer cut into LLM-sized deltas
by the agent's own tokenizer and sent at a fixed token rate by the agent's own pacing, so
"40 tokens/s" means the same text timing in the TTS benchmark, the agent benchmark and the
demo."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from voice_agent.llm import DEFAULT_REPLAY_ANSWER, paced, replay_tokens

# The 267-character, 4-sentence benchmark paragraph (the agent's default replayed answer).
PARAGRAPH = DEFAULT_REPLAY_ANSWER


def llm_deltas(text: str) -> list[str]:
    """Text as an LLM streams it: a word with its leading space per delta, long words cut."""
    return replay_tokens(text)


async def deltas_at(deltas: Sequence[str], tokens_per_s: float | None) -> AsyncIterator[str]:
    """The deltas paced at tokens_per_s (as the agent's replayed answer), or all at once."""
    if tokens_per_s is None:
        for delta in deltas:
            yield delta
        return
    async for delta in paced(deltas, tokens_per_s):
        yield delta

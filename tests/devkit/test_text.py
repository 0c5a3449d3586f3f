"""One text source: the demo and the TTS benchmark send exactly the deltas, on exactly the
schedule, that the agent's replayed answer produces at the same token rate."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from devkit.text import PARAGRAPH, deltas_at, llm_deltas
from voice_agent.llm import ReplayedAnswerSource


async def timed(stream: AsyncIterator[str]) -> list[tuple[str, float]]:
    loop = asyncio.get_running_loop()
    start = loop.time()
    return [(delta, loop.time() - start) async for delta in stream]


async def test_devkit_deltas_are_the_agents_replayed_answer() -> None:
    rate = 400.0
    ours = await timed(deltas_at(llm_deltas(PARAGRAPH), rate))
    agent = await timed(ReplayedAnswerSource(PARAGRAPH, tokens_per_s=rate).stream("prompt"))
    assert [d for d, _ in ours] == [d for d, _ in agent]
    assert "".join(d for d, _ in ours) == PARAGRAPH
    # Same schedule: delta i is due (i + 1) / rate after the start, never earlier.
    for i, (_, at) in enumerate(ours):
        assert at >= (i + 1) / rate - 1e-3


async def test_unpaced_deltas_come_at_once() -> None:
    assert [d async for d in deltas_at(["a ", "b."], None)] == ["a ", "b."]


def test_the_benchmark_paragraph_is_four_sentences_of_267_characters() -> None:
    assert len(PARAGRAPH) == 267
    assert PARAGRAPH.count(". ") + PARAGRAPH.count("? ") + 1 == 4

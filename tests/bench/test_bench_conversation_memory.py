"""The conversation memory benchmark measures what it says: a small store, filled the agent's
way, holds more for longer or wider text; bad flags are refused."""

from __future__ import annotations

import pytest

from bench.conversation_memory import answer_events, fill, parse_args, text_of
from voice_agent.heard import AnswerTimeline


def test_the_text_has_the_asked_length_and_width() -> None:
    text = text_of("会", 100, salt=7)
    assert len(text) == 100 and text.startswith("7 ") and "会会会会会 " in text
    timeline = AnswerTimeline()
    for event in answer_events(text_of("a", 200, salt=1)):
        timeline.observe(event)
    assert timeline.complete and timeline.heard(None).text == text_of("a", 200, salt=1)


def test_memory_grows_with_answer_length_and_character_width() -> None:
    ascii_short = fill(2, 2, "a", 500)
    assert fill(2, 2, "a", 2000) > ascii_short
    assert fill(2, 2, "😀", 500) > fill(2, 2, "会", 500) > ascii_short
    # Two turns of an 8000-character prompt alone take 16 kB per conversation.
    assert ascii_short > 2 * 2 * 8000


@pytest.mark.parametrize(
    "argv",
    [["--turns", "0"], ["--conversations", "0"], ["--answer-chars", "x"], ["--answer-chars", "0"]],
)
def test_bad_flags_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)

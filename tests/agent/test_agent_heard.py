"""The cut of an answer at `played_ms`, on hand-built word timings (the real model's timings
are used in tests/agent/test_agent_conversation_e2e.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from voice_agent.events import AgentEvent, AudioEvent, done_event, sentence_event, words_event
from voice_agent.heard import AnswerTimeline, cut_after_words


def word(text: str, start_ms: int, end_ms: int) -> dict[str, object]:
    return {"text": text, "start_ms": start_ms, "end_ms": end_ms}


def pcm(index: int, ms: float, fmt: str = "pcm") -> AudioEvent:
    """`ms` of sentence `index`'s audio as it goes out to the caller (24 kHz 16-bit)."""
    return AudioEvent(index, fmt, 24000, bytes(2 * int(24 * ms)))


# Two sentences played back to back: the second starts where the first's audio ends (1200).
FIRST = "Hello there, friend."
SECOND = "How are you?"
EVENTS: list[AgentEvent] = [
    sentence_event(0, FIRST, 0.0),
    words_event(
        0, 0.0, [word("Hello", 100, 300), word("there,", 350, 600), word("friend.", 700, 1000)]
    ),
    pcm(0, 1200),
    sentence_event(1, SECOND, 1200.0),
    words_event(1, 1200.0, [word("How", 100, 300), word("are", 300, 450), word("you?", 500, 900)]),
    pcm(1, 1100),
]


def timeline(events: Sequence[AgentEvent], complete: bool = True) -> AnswerTimeline:
    t = AnswerTimeline()
    for event in events:
        t.observe(event)
    if complete:
        t.observe(done_event({"audio_seconds": 2.3}))
    return t


@pytest.mark.parametrize(
    ("played_ms", "heard", "everything"),
    [
        (0, "", False),  # before any audio
        (299.9, "", False),  # inside the first word
        (300, "Hello", False),  # a word that ends exactly at played_ms was heard
        (650, "Hello there,", False),  # in the pause after a comma
        (1100, FIRST, False),  # between the sentences
        (1200 + 450, f"{FIRST} How are", False),  # answer clock: the offset counts
        (1200 + 899, f"{FIRST} How are", False),
        (2100, f"{FIRST} {SECOND}", True),  # the last word's end
        (60_000, f"{FIRST} {SECOND}", True),  # after the end
    ],
)
def test_cut_keeps_the_words_whose_audio_ended_by_played_ms(
    played_ms: float, heard: str, everything: bool
) -> None:
    cut = timeline(EVENTS).heard(played_ms)
    assert (cut.text, cut.everything) == (heard, everything)


def test_an_answer_that_did_not_complete_was_never_heard_whole() -> None:
    cut = timeline(EVENTS, complete=False).heard(60_000)
    assert (cut.text, cut.everything) == (f"{FIRST} {SECOND}", False)


def test_without_played_ms_every_delivered_sentence_counts() -> None:
    only_first = timeline(EVENTS[:2], complete=False)
    assert only_first.heard(None).text == FIRST and not only_first.heard(None).everything
    assert timeline(EVENTS).heard(None).everything


def test_cjk_words_keep_the_sentences_own_spacing() -> None:
    text = "今日は晴れです。"
    events = [
        sentence_event(0, text, 0.0),
        words_event(0, 0.0, [word(ch, 100 * i, 100 * i + 90) for i, ch in enumerate(text)]),
    ]
    assert timeline(events).heard(290).text == "今日は"


def test_without_word_timestamps_a_sentence_counts_once_its_audio_ended() -> None:
    events = [sentence_event(0, FIRST, 0.0), sentence_event(1, SECOND, 1200.0)]
    t = timeline(events, complete=False)
    assert t.heard(1199).text == ""  # never half a sentence: its words' times are unknown
    assert t.heard(1200).text == FIRST
    assert t.heard(60_000).text == FIRST  # the last one's end is unknown until `done`
    done = timeline(events)  # done: the answer's audio was 2.3 s
    assert done.heard(2299).text == FIRST
    assert (done.heard(2300).text, done.heard(2300).everything) == (f"{FIRST} {SECOND}", True)


def test_words_of_a_sentence_never_delivered_are_ignored() -> None:
    t = timeline([*EVENTS[:3], EVENTS[4]], complete=False)  # sentence 1 never went out
    assert t.heard(60_000).text == FIRST


def test_words_whose_audio_was_not_delivered_were_not_heard() -> None:
    """played_ms beyond the audio sent: the cut is at the audio delivered."""
    partly = timeline([*EVENTS[:5], pcm(1, 450)], complete=False)  # up to the end of "are"
    assert partly.heard(60_000).text == f"{FIRST} How are"
    assert partly.heard(1200 + 300).text == f"{FIRST} How"  # played_ms still cuts first
    nothing = timeline(EVENTS[:2], complete=False)  # a sentence whose audio never went out
    assert nothing.heard(60_000).text == ""


def test_compressed_audio_counts_a_sentence_once_the_next_one_went_out() -> None:
    """mp3/opus bytes do not say their duration: only whole sentences count as delivered."""
    mp3 = [*EVENTS[:2], pcm(0, 1200, "mp3"), *EVENTS[3:5], pcm(1, 1100, "mp3")]
    assert timeline(mp3, complete=False).heard(60_000).text == FIRST
    assert timeline(mp3).heard(60_000).text == f"{FIRST} {SECOND}"


def test_cut_after_words_finds_each_word_in_order() -> None:
    assert cut_after_words("It costs $29.99, Dr. Smith said.", ["It", "costs", "$29.99,"]) == (
        "It costs $29.99,"
    )
    assert cut_after_words("a a a.", ["a", "a"]) == "a a"
    # Words that are not the sentence's own are kept as the TTS gave them.
    assert cut_after_words("Hello there.", ["Hullo", "there."]) == "Hullo there."

"""Word boundaries from written words to model calls to times, without the model: cutting long
sentences into calls, durations -> word times; and espeak's warnings kept out of the log."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from kokoro_server.engine.model_calls import MAX_TOKENS, plan_calls, tokenize
from kokoro_server.engine.model_files import from_pypi_packages
from kokoro_server.engine.word_times import word_timings
from kokoro_server.spoken import SpokenWord
from kokoro_server.text.phonemes import Phonemizer


@pytest.fixture(scope="module")
def phonemizer() -> Phonemizer:
    return Phonemizer("en-us")


@pytest.fixture(scope="module")
def vocab() -> dict[str, int]:
    return from_pypi_packages().vocab


# ---- model calls ----------------------------------------------------------------------


def words_of(phonemes: str) -> list[SpokenWord]:
    parts = phonemes.split(" ")
    return [SpokenWord(p, p + " " if i < len(parts) - 1 else p) for i, p in enumerate(parts)]


def test_short_sentence_is_one_call_with_its_tokens_in_order(vocab):
    words = words_of("həlˈoʊ wˈɜːld.")
    [call] = plan_calls(words, vocab)
    assert "".join(t.char for t in call.tokens) == "həlˈoʊ wˈɜːld."
    assert [t.word for t in call.tokens] == [0] * 7 + [1] * 7
    assert [t.sounding for t in call.tokens if t.word == 1] == [True] * 6 + [False]


def test_long_sentence_is_cut_after_clauses_under_the_limit(vocab):
    words = words_of(" ".join(["ðɪs", "ɪz", "ɐ", "klˈɔz,"] * 80))
    calls = plan_calls(words, vocab)
    assert len(calls) > 1
    assert all(len(c.tokens) <= MAX_TOKENS for c in calls)
    assert all(c.tokens[-1].char == "," for c in calls[:-1])
    # Nothing lost or reordered: only the spaces at the cuts are left out.
    sent = [t for c in calls for t in c.tokens]
    assert [t for t in tokenize(words, vocab) if t not in sent] == [
        t for t in tokenize(words, vocab) if t.char == " " and t not in sent
    ]
    assert len(tokenize(words, vocab)) - len(sent) == len(calls) - 1


def test_one_word_over_the_limit_is_cut_hard(vocab):
    calls = plan_calls([SpokenWord("aaa", "a" * 1200)], vocab)
    assert [len(c.tokens) for c in calls] == [510, 510, 180]


def test_phonemes_outside_the_vocabulary_are_dropped(vocab):
    [call] = plan_calls([SpokenWord("x", "a\u0000b")], vocab)
    assert "".join(t.char for t in call.tokens) == "ab"


# ---- durations -> word times ------------------------------------------------------------


def test_words_run_from_their_first_to_last_sounding_token(vocab):
    words = [SpokenWord("Hi,", "hi, "), SpokenWord("—", "— "), SpokenWord("yo.", "jo.")]
    calls = plan_calls(words, vocab)
    # pad h i , space — space j o . pad
    durations = [np.array([4, 2, 3, 5, 1, 6, 1, 2, 2, 7, 3])]
    timings = word_timings(words, calls, durations)
    assert [(t.text, t.start_ms, t.end_ms) for t in timings] == [
        ("Hi,", 100, 225),  # h+i; the comma's pause belongs to no word
        ("—", 375, 375),  # no sounding token: an empty span where it stands
        ("yo.", 550, 650),
    ]


def test_durations_must_match_the_tokens(vocab):
    words = [SpokenWord("hi", "hi")]
    with pytest.raises(ValueError, match="durations for 2 tokens"):
        word_timings(words, plan_calls(words, vocab), [np.array([1, 1, 1])])


def test_espeaks_word_count_warnings_stay_out_of_the_server_log(phonemizer):
    class Recorder(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.names: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.names.append(record.name)

    recorder = Recorder()
    root = logging.getLogger()  # where logs.configure() puts the server's JSON handler
    root.addHandler(recorder)
    try:
        phonemizer("It costs $29.99 today.")  # espeak says four words for one
    finally:
        root.removeHandler(recorder)
    assert "phonemizer" not in recorder.names

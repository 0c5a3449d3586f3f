"""The assistant-style corpus through the real text front end (espeak-ng, no model run):
every class sounds right at least 97 % of the time (judged on phonemes: what the server
says must sound like an accepted reading), and the heteronym rules choose the corpus' sense
where espeak-ng alone does not.

Each row goes the server's way (devkit/speech_corpus.py): cleaning and markdown first
(MarkdownSpeech), then normalization and G2P, so the markdown, emoji and control classes
are held to the same bar as the classes normalization owns.
"""

from __future__ import annotations

from typing import Any

import pytest

from devkit.speech_corpus import evaluate, load_frontend, read_corpus

CASES = read_corpus()
CLASSES = sorted({c.category for c in CASES})


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    return evaluate(CASES)


def test_the_corpus_is_wide_and_every_class_has_thirty_cases():
    assert len(CASES) >= 1000
    assert {"markdown", "emoji", "control"} <= set(CLASSES)
    for category in CLASSES:
        assert sum(c.category == category for c in CASES) >= 30, category
    assert all(c.senses for c in CASES if c.category == "heteronym")


@pytest.mark.parametrize("category", CLASSES)
def test_each_class_reads_as_a_person_would(result, category):
    row = result["classes"][category]
    wrong = result["wrong"].get(category, [])
    assert row["correct"] / row["cases"] >= 0.97, wrong[:5]


def test_heteronyms_get_their_sense_more_often_than_with_espeak_alone(result):
    senses = result["heteronyms"]
    assert senses["espeak-ng + context rules"] >= 0.95 * senses["senses"]
    assert senses["espeak-ng + context rules"] > senses["espeak-ng alone"]


def test_a_heteronym_keeps_its_written_word_and_gets_its_senses_phonemes():
    frontend = load_frontend()
    past = frontend("He wound the cable around the spool.", "af_heart")
    injury = frontend("Clean the wound with soap.", "af_heart")
    assert {w.text: w.phonemes for w in past.words}["wound"].strip() == "wˈaʊnd"
    assert {w.text: w.phonemes for w in injury.words}["wound"].strip() == "wˈuːnd"
    # The written words and the model input are untouched: captions name what was written.
    assert " ".join(w.text for w in past.words) == "He wound the cable around the spool."
    assert "".join(w.phonemes for w in past.words) == past.phonemes
    assert past.normalized == "He wound the cable around the spool."

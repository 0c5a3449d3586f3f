"""Letters said by their names: a lone capital A that is a letter is said /eɪ/, not the
article /ɐ/ ("ten thirty A M", not "ten thirty uh em"), and the corpus judge hears the
difference between "a m" and "A M" as a listener does."""

from __future__ import annotations

import pytest

from devkit.speech_corpus import Case, ReadingJudge, evaluate, load_frontend
from kokoro_server.text.normalize.en.letters import LETTER_A
from kokoro_server.text.phonemes import Phonemizer


@pytest.fixture(scope="module")
def frontend():
    return load_frontend()


def _said(frontend, text: str, voice: str = "af_heart") -> dict[str, str]:
    return {w.text: w.phonemes.strip(" .,") for w in frontend(text, voice).words}


@pytest.mark.parametrize("language", ["en-us", "en-gb"])
def test_the_spelling_for_the_letter_a_is_said_as_the_letter_alone(language):
    g2p = Phonemizer(language)
    assert g2p(LETTER_A).strip() == g2p("A").strip()
    # ...also with a word after it, where espeak-ng reads a written A as the article.
    assert g2p(f"{LETTER_A} team").split()[0] == g2p("A").strip()
    assert g2p("A team").split()[0] != g2p("A").strip()


@pytest.mark.parametrize("voice", ["af_heart", "bf_emma"])
def test_a_m_and_p_m_are_said_as_letters(frontend, voice):
    letter_a = Phonemizer("en-us")("A").strip()
    words = _said(frontend, "Doors open at 10:30 a.m. and close at 6 PM.", voice)
    assert words["10:30 a.m."].split()[-2] == letter_a
    assert frontend("It is 9am.", voice).normalized == "It is nine A M."


@pytest.mark.parametrize(
    ("text", "word", "letter"),
    [
        ("Plan A is cheaper.", "A", True),
        ("The Q&A session starts at noon.", "Q&A", True),
        ("Pick A or B.", "A", True),
        ("Your grade is A.", "A.", True),
        ("Seat A12 is by the window.", "A12", True),
        ("A dog barked all night.", "A", False),
        ("Note: A good rule is to test first.", "A", False),
        ("How To Take A Break", "A", False),
        ("A 10 kg bag lasts a month.", "A", False),
    ],
)
def test_a_lone_capital_a_is_a_letter_only_where_its_context_says_so(frontend, text, word, letter):
    letter_a = Phonemizer("en-us")("A").strip()
    said = _said(frontend, text)[word]
    assert (letter_a in said) == letter, said


def test_the_judge_tells_the_article_from_the_letter(frontend):
    judge = ReadingJudge(frontend)
    assert judge.said("ten thirty a m") != judge.said("ten thirty A M")
    assert judge.said("ten thirty A M") == judge.said("ten thirty eh em")
    assert judge.said("a dog") != judge.said("A dog")


def test_a_row_passes_only_when_its_phonemes_match_a_reading():
    written = "Check-in opens at 10:30 a.m."
    # The normalized text "ten thirty A M" matches both readings once case is folded; only
    # the one that spells the letters sounds like what the server says.
    heard_as_article = Case("time", written, ("Check-in opens at ten thirty a m.",))
    heard_as_letters = Case("time", written, ("Check-in opens at ten thirty A M.",))
    result = evaluate([heard_as_article, heard_as_letters])["classes"]["time"]
    assert result == {"correct": 1, "cases": 2, "text_correct": 2}

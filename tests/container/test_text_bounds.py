"""Every per-sentence text step is bounded, and a stop ends a sentence between its steps.

Work is counted, not timed: the lines the aligner (text/alignment.py) executes, traced with
sys.settrace. A count that passes its bound stops the run at once, so an aligner that grows
faster than the sentence fails in a moment rather than after minutes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devkit.speech_corpus import distance as textbook_distance  # the table, row by row
from kokoro_server.engine.stop import Stopped, StopSignal
from kokoro_server.text import alignment
from kokoro_server.text.alignment import assign_tokens, distance, word_slices
from kokoro_server.text.normalize import normalize
from kokoro_server.text.phonemes import Phonemizer


class TooMuchWork(Exception):
    pass


def aligner_lines(call: Callable[[], object], limit: int = 10**9) -> int:
    """Lines of text/alignment.py that `call` executes; TooMuchWork past `limit`."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            if count > limit:
                raise TooMuchWork(f"over {limit} aligner lines")
        return local

    def outer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == alignment.__file__ else None

    sys.settrace(outer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


@pytest.fixture(scope="module")
def g2p() -> Phonemizer:
    return Phonemizer("en-us")


def costly(nines: int) -> list[str]:
    """A sentence whose one written form is `nines` + 1 spoken words ("nine ... dollars")."""
    return [w.spoken for w in normalize(f"Cost 1e999999 or ${'9' * nines} today.", "en-us")]


def test_one_long_written_form_costs_the_aligner_linear_work(g2p):
    words = {n: costly(n) for n in (50, 100, 200)}
    base = aligner_lines(lambda: g2p.words(words[50]))
    # Linear: twice the nines at most about twice the work (the rest of the sentence is fixed).
    assert aligner_lines(lambda: g2p.words(words[100]), limit=int(2.5 * base)) > base
    assert aligner_lines(lambda: g2p.words(words[200]), limit=5 * base) > base
    slices = g2p.words(words[200])
    assert slices[3].split() == ["nˈaɪn"] * 200 + ["dˈɑːlɚz"]


def test_edit_distance_of_long_strings_is_linear_work():
    short = aligner_lines(lambda: distance("ab" * 500, "ba" * 500))
    assert aligner_lines(lambda: distance("ab" * 1000, "ba" * 1000), limit=3 * short) > short
    assert distance("ab" * 1000, "ba" * 1000) == pytest.approx(2 / 2000)


_SHORT = st.text(alphabet="abdðəˈ", max_size=90)


@settings(max_examples=500, deadline=None)
@given(_SHORT, _SHORT)
def test_edit_distance_is_exact(a, b):
    plain_a, plain_b = alignment.bare(a), alignment.bare(b)
    if plain_a == plain_b:
        expected = 0.0
    elif not plain_a or not plain_b:
        expected = 1.0
    else:
        expected = textbook_distance(plain_a, plain_b) / max(len(plain_a), len(plain_b))
    assert distance(a, b) == pytest.approx(expected)


def test_a_stretch_too_big_to_align_is_shared_out_in_order_by_length():
    tokens = ["ab"] * 30  # nothing anchors: 30 x 30 is far over the programme's budget
    assert assign_tokens(tokens, ["cd"] * 30) == [["ab"]] * 30
    # A guide three times as long gets three times the tokens.
    assert assign_tokens(["ab"] * 40, ["cdcdc", "c"] * 10) == [["ab"] * 3, ["ab"]] * 10


# ---- the slices always join back ----------------------------------------------------------

_PHONEME = st.text(alphabet="abdeiktðəɚɪˈˌː", min_size=1, max_size=7)


@st.composite
def near_guides(draw: st.DrawFn, tokens: list[str]) -> list[str]:
    """Written forms made of the tokens as the G2P might read them alone: grouped, some
    letters changed, some tokens merged or dropped, and some words with no phonemes."""
    guides: list[str] = []
    i = 0
    while i < len(tokens):
        size = draw(st.integers(1, 4))
        group = [draw(st.sampled_from([t, t[::-1], t + "ə", t[:1]])) for t in tokens[i : i + size]]
        if draw(st.booleans()) and len(group) > 1:
            group[:2] = [group[0] + group[1]]
        guides.append(" ".join(group) if draw(st.integers(0, 9)) else "")
        i += size
    return guides or [""]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PHONEME, min_size=1, max_size=70), st.data())
def test_word_slices_join_back_exactly(tokens, data):
    whole = " ".join(tokens)
    guides = data.draw(
        st.one_of(
            near_guides(tokens),
            st.lists(st.lists(_PHONEME, max_size=3).map(" ".join), min_size=1, max_size=20),
        )
    )
    slices = word_slices(whole, guides)
    assert len(slices) == len(guides)
    assert "".join(slices) == whole


# ---- normal sentences keep their word boundaries ------------------------------------------

# espeak-ng (espeakng-loader as pinned) through Phonemizer.words, each cut checked by hand
# against the words read alone; regenerate by printing Phonemizer("en-us").words(words).
NORMAL = [
    (
        ["It", "ranked", "one", "hundred", "twelfth", "in", "the", "global", "index."],
        ["ɪt ", "ɹˈæŋkt ", "wˈʌn ", "hˈʌndɹɪd ", "twˈɛlfθ ", "ɪn", "ðə ", "ɡlˈoʊbəl ", "ˈɪndɛks."],
    ),
    (
        ["Head", "to", "room", "twelve eighty-one", "on", "the", "sixth", "floor."],
        ["hˈɛd ", "tə ", "ɹˈuːm ", "twˈɛlv ˈeɪɾiwˈʌn ", "ɔn", "ðə ", "sˈɪksθ ", "flˈɔːɹ."],
    ),
    (
        ["A", "one thousand nine hundred twenty by 1080", "screen."],
        ["ɐ ", "wˈʌn θˈaʊzənd nˈaɪn hˈʌndɹɪd twˈɛnti baɪ wˈʌn θˈaʊzənd ˈeɪɾi ", "skɹˈiːn."],
    ),
    (
        ["They", "paid", "two point three million euros", "for", "the", "building."],
        ["ðeɪ ", "pˈeɪd ", "tˈuː pˈɔɪnt θɹˈiː mˈɪliən jˈʊɹɹoʊz ", "fɚ", "ðə ", "bˈɪldɪŋ."],
    ),
    (
        ["Bake", "at", "one hundred eighty degrees Celsius", "for", "an", "hour."],
        ["bˈeɪk ", "æt ", "wˈʌn hˈʌndɹɪd ˈeɪɾi dᵻɡɹˈiːz sˈɛlsɪəs ", "fɚɹ", "ən ", "ˈaʊɚ."],
    ),
    (
        ["We", "finished", "thirty-ninth", "out", "of", "four hundred seventy-four", "teams."],
        [
            "wiː ",
            "fˈɪnɪʃt ",
            "θˈɜːtinˈaɪnθ ",
            "ˌaʊɾ",
            "əv ",
            "fˈɔːɹ hˈʌndɹɪd sˈɛvəntifˈɔːɹ ",
            "tˈiːmz.",
        ],
    ),
]


@pytest.mark.parametrize(("words", "expected"), NORMAL, ids=[" ".join(w)[:30] for w, _ in NORMAL])
def test_word_phonemes_of_normal_sentences(g2p, words, expected):
    assert g2p.words(words) == expected


# ---- a stop ends a sentence between its steps ---------------------------------------------


@pytest.fixture
def counted_engine(service, monkeypatch):
    """The real engine, its model calls and front-end calls counted."""
    engine = service.engine
    counts = {"model": 0, "frontend": 0}
    run, phonemize = engine.session.run, engine.phonemize

    def counted_run(*args: Any, **kwargs: Any) -> Any:
        counts["model"] += 1
        return run(*args, **kwargs)

    def counted_phonemize(*args: Any, **kwargs: Any) -> Any:
        counts["frontend"] += 1
        return phonemize(*args, **kwargs)

    monkeypatch.setattr(engine.session, "run", counted_run)
    monkeypatch.setattr(engine, "phonemize", counted_phonemize)
    return engine, counts, monkeypatch


def test_a_stop_during_the_front_end_ends_the_job_before_any_model_call(counted_engine):
    engine, counts, monkeypatch = counted_engine
    stop = StopSignal()
    reading = engine.phonemize

    def stopped_while_reading(*args: Any, **kwargs: Any) -> Any:
        result = reading(*args, **kwargs)
        stop.stop()  # the cancel arrives while the text is still being read
        return result

    monkeypatch.setattr(engine, "phonemize", stopped_while_reading)
    with pytest.raises(Stopped):
        engine.synthesize_timed(
            "A sentence the model never speaks.", engine.default_voice, stop=stop
        )
    assert counts == {"model": 0, "frontend": 1}
    engine.synthesize_timed("Then the next one is spoken.", engine.default_voice, stop=StopSignal())
    assert counts["model"] >= 1


def test_a_job_stopped_before_it_starts_reads_no_text(counted_engine):
    engine, counts, _ = counted_engine
    stop = StopSignal()
    stop.stop()
    with pytest.raises(Stopped):
        engine.synthesize_timed("Nobody wants this one.", engine.default_voice, stop=stop)
    assert counts == {"model": 0, "frontend": 0}

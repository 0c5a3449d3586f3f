"""speech_judge/speech_asr.py, asr_score.py and asr_whisper.py: the ASR round trip.

The scoring is tested alone (Whisper's real normalizer, no model); one test speaks short
sentences through the real server and has the real Whisper tiny.en hear them, so the judge
is seen to score what it hears: low for a clearly spoken sentence, high against a reference
that was never said.
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.common import BenchError
from devkit.speech_corpus import Case, read_corpus
from speech_judge.asr_score import (
    ALL,
    DIFFERENCE,
    Judged,
    Score,
    bootstrap_intervals,
    edit_count,
    end_missing,
    english_normalizer,
    join_spelled,
    reference_words,
    run_spread,
    score,
    spell_addresses,
    start_missing,
    table,
    tallies,
    words,
    worse_sentences,
)
from speech_judge.asr_whisper import WHISPER_RATE, whisper_audio
from speech_judge.speech_asr import (
    PEER_ENGINE,
    PROJECT,
    judge,
    judgeable,
    print_report,
    project_speaker,
    sample_cases,
)

NORMALIZE = english_normalizer()


def judged(
    engine: str, run: int, category: str, written: str, ref: str, heard: str, audio: str = ""
) -> Judged:
    found = score([ref], heard, NORMALIZE)
    return Judged(engine, run, category, written, heard, found, audio)


# ---- words --------------------------------------------------------------------------------


def test_spelled_letters_and_split_numbers_are_one_word() -> None:
    assert join_spelled(["at", "2", "p", "m", "eastern"]) == ["at", "2", "pm", "eastern"]
    assert join_spelled(["the", "u", "s", "a", "team"]) == ["the", "usa", "team"]
    assert join_spelled(["i", "have", "a", "cat"]) == ["i", "have", "a", "cat"]
    assert join_spelled(["at", "10", "30", "or", "11"]) == ["at", "1030", "or", "11"]
    # A letter after a word is not glued to it, nor a number after a letter run.
    assert join_spelled(["at", "p", "m", "9"]) == ["at", "pm", "9"]


def test_the_corpus_readings_and_whispers_spellings_give_the_same_words() -> None:
    pairs = [
        ("The U S dollar.", "The U.S. dollar."),
        ("Check-in opens at ten thirty a m.", "Check-in opens at 10:30 a.m."),
        ("It costs twenty-nine dollars and ninety-nine cents.", "It costs $29.99."),
        ("I'd start with the list.", "I would start with the list."),
        ("Dissolve one tablespoon.", "Dissolve 1 tablespoon."),
        ("Written in C plus plus and C sharp.", "Written in C++ and C sharp."),
        ("Mail receipts at my dash company dot co dot uk.", "Mail receipts@my-company.co.uk."),
        ("See python dot org slash about.", "See python.org/about"),
    ]
    for reading, transcript in pairs:
        assert words(reading, NORMALIZE) == words(transcript, NORMALIZE), reading
    # A spelled run after the article "a" is tried both ways; the nearer one is judged.
    assert reference_words("She has a P h D.", NORMALIZE) == [
        ["she", "has", "aphd"],
        ["she", "has", "a", "phd"],
    ]
    assert score(["She has a P h D."], "She has a PhD.", NORMALIZE).edits == 0
    assert reference_words("Made in the U S A.", NORMALIZE) == [["made", "in", "the", "usa"]]


def test_only_addresses_have_their_punctuation_read() -> None:
    assert spell_addresses("Go to www.python.org now.") == "Go to www dot python dot org now."
    assert spell_addresses("https://api.example.com/v2") == (
        "https  slash  slash api dot example dot com slash v2"
    )
    kept = "At 2 p.m., e.g. Ph.D. work, 4.2 GB, v1.2.3 and 24/7."
    assert spell_addresses(kept) == kept


# ---- edits and edges -----------------------------------------------------------------------


def test_word_edits_count_substitutions_deletions_and_insertions() -> None:
    ref = ["the", "cat", "sat", "on", "the", "mat"]
    assert edit_count(ref, ref) == 0
    assert edit_count(ref, ["the", "cat", "sat", "on", "a", "mat"]) == 1
    assert edit_count(ref, ["cat", "sat", "on", "the", "mat"]) == 1
    assert edit_count(ref, ["well", "the", "cat", "sat", "on", "the", "mat"]) == 1
    assert edit_count(ref, []) == 6
    assert edit_count([], ["extra"]) == 1


def test_words_missing_at_the_edges_allow_one_inserted_word() -> None:
    ref = ["rated", "four", "stars", "on", "the", "store"]
    assert not start_missing(ref, ref) and not end_missing(ref, ref)
    assert not start_missing(ref, ["oh", *ref])  # one word before it: still at the start
    assert start_missing(ref, ["wait", "at", *ref[1:]])
    assert start_missing(ref, ["oh", "well", *ref])  # two words before it
    assert end_missing(ref, ref[:-1])
    assert not end_missing(ref, [*ref, "yes"])
    assert start_missing(ref, []) and end_missing(ref, [])


def test_score_judges_against_the_nearest_accepted_reading() -> None:
    readings = ["The train leaves at fourteen hundred.", "The train leaves at two p m."]
    found = score(readings, "The train leaves at 2 p.m.", NORMALIZE)
    assert found.edits == 0
    assert found.reference == ("the", "train", "leaves", "at", "2", "pm")
    wrong = score(readings, "The rain leaves.", NORMALIZE)
    assert wrong.edits == 3 and wrong.end_missing and not wrong.start_missing
    with pytest.raises(ValueError):
        score([], "anything", NORMALIZE)


# ---- tallies and the table -----------------------------------------------------------------


def test_class_wer_pools_the_words_not_the_sentence_rates() -> None:
    ten = tuple("abcdefghij")
    items = [
        Judged(PROJECT, 1, "time", "a", "-", Score(ten, (*ten[:9], "k"), 1, False, False)),
        judged(PROJECT, 1, "time", "b", "red blue", "green"),
    ]
    pooled = tallies(items)
    # (1 + 2) edits over 12 words, not the mean of 10 % and 100 %.
    assert pooled["time"][PROJECT].wer == pytest.approx(3 / 12)
    assert pooled[ALL][PROJECT].sentences == 2
    assert pooled[ALL][PROJECT].end_missing == 1


def test_the_table_has_a_row_per_class_then_all_with_each_engines_numbers() -> None:
    items = [
        judged(PROJECT, 1, "year", "w1", "in nineteen ninety nine", "in 1999"),
        judged("peer", 1, "year", "w1", "in nineteen ninety nine", "in 1989"),
        judged(PROJECT, 1, "emoji", "w2", "thumbs up for that", "up for that"),
        judged("peer", 1, "emoji", "w2", "thumbs up for that", "thumbs up for that"),
    ]
    lines = table(items, [PROJECT, "peer"]).splitlines()
    assert lines[0].split()[:3] == ["class", "sentences", "words"]
    rows = [line.split() for line in lines if line and not line.startswith(("-", "class"))]
    assert [row[0] for row in rows] == ["emoji", "year", ALL]
    emoji = rows[0]
    assert emoji[1:4] == ["1", "4", "25.0"]  # one sentence, four words, one edit of four
    assert emoji[4:7] == ["1/0", "of", "1"]
    assert emoji[7] == "0.0"
    year = rows[1]
    assert year[3] == "0.0" and year[7] == "50.0"  # "1999" against "1989": one of two


def test_runs_show_their_range_and_the_sentences_heard_differently() -> None:
    ref = "the cat sat on the mat"
    items = [
        judged(PROJECT, 1, "plain", "s1", ref, ref, "a1"),
        judged(PROJECT, 1, "plain", "s2", ref, ref, "b1"),
        judged(PROJECT, 2, "plain", "s1", ref, "the cat sat on a mat", "a2"),
        judged(PROJECT, 2, "plain", "s2", ref, ref, "b2"),
    ]
    spread = run_spread(items, PROJECT)
    assert spread["runs"] == 2
    assert spread["wer_min"] == 0.0 and spread["wer_max"] == pytest.approx(1 / 12)
    assert spread["sentences_heard_differently"] == 1 and spread["sentences"] == 2
    # Both sentences sounded different the second time; one was still heard the same.
    assert spread["sentences_with_different_audio"] == 2
    row = next(line for line in table(items, [PROJECT]).splitlines() if line.startswith("plain"))
    assert row.split()[1:5] == ["2", "12", "4.2", "(0.0-8.3)"]


def test_worse_sentences_name_where_ours_was_heard_with_more_edits() -> None:
    ref = "turn left at the second light"
    items = [
        judged(PROJECT, 1, "ordinal", "Turn left at the 2nd light.", ref, "turn left at the light"),
        judged("peer", 1, "ordinal", "Turn left at the 2nd light.", ref, ref),
        judged(PROJECT, 1, "plain", "Same.", "same", "same"),
        judged("peer", 1, "plain", "Same.", "same", "shame"),
    ]
    worse = worse_sentences(items, PROJECT, "peer")
    assert [(w["class"], w[PROJECT], w["peer"]) for w in worse] == [
        ("ordinal", "turn left at the light", ref)
    ]


def test_bootstrap_intervals_bound_what_another_draw_of_sentences_could_give() -> None:
    ref = "red green blue white"
    items = []
    for n, heard in enumerate(["red green blue white", "red green blue", "red green", "red green"]):
        items.append(judged(PROJECT, 1, "plain", f"s{n}", ref, heard))
        items.append(judged("peer", 1, "plain", f"s{n}", ref, ref))
    intervals = bootstrap_intervals(items, [PROJECT, "peer"], draws=500)
    assert intervals == bootstrap_intervals(items, [PROJECT, "peer"], draws=500)  # seeded
    low, high = intervals[ALL][PROJECT]
    assert low < tallies(items)[ALL][PROJECT].wer < high  # 5 of 16 words lost
    assert low >= 0.0 and high <= 0.5  # no draw loses more than two words of four
    assert intervals[ALL]["peer"] == (0.0, 0.0)
    assert intervals["plain"][DIFFERENCE] == (low, high)  # the peer lost nothing
    assert set(intervals) == {"plain", ALL}


def test_the_report_names_the_classes_heard_worse(capsys: pytest.CaptureFixture[str]) -> None:
    ref = "turn left at the second light"
    items = [
        judged(PROJECT, 1, "ordinal", "a", ref, "turn left at the light"),
        judged(PEER_ENGINE, 1, "ordinal", "a", ref, ref),
        judged(PROJECT, 1, "plain", "b", ref, ref),
        judged(PEER_ENGINE, 1, "plain", "b", ref, "turn right at the second light"),
    ]
    seconds = {"n": 2, "median": 1.0, "p95": 1.5, "total": 2.0}
    timing = {
        e: {"synthesis_s": seconds, "transcription_s": seconds, "audio_s": seconds}
        for e in (PROJECT, PEER_ENGINE)
    }
    print_report(items, timing, runs=1, show=3)
    out = capsys.readouterr().out
    assert "heard worse than kokoro-onnx (difference interval): ordinal (16.7 to 16.7)" in out
    assert "project:     turn left at the light  (1 edits)" in out
    assert "plain" not in out.split("heard worse")[1]


# ---- the sample ----------------------------------------------------------------------------


def test_the_sample_is_deterministic_per_class_and_skips_multiline_rows() -> None:
    cases = read_corpus()
    first = sample_cases(cases, 3, seed=7)
    assert first == sample_cases(cases, 3, seed=7)
    assert first != sample_cases(cases, 3, seed=8)
    assert all(judgeable(c) and "\n" not in c.written for c in first)
    per_class: dict[str, int] = {}
    for case in first:
        per_class[case.category] = per_class.get(case.category, 0) + 1
    assert set(per_class.values()) == {3}
    assert set(per_class) == {c.category for c in cases}
    # A class' draw does not depend on which other classes were asked for.
    only_time = sample_cases(cases, 3, ["time"], seed=7)
    assert only_time == [c for c in first if c.category == "time"]
    assert any("\n" in c.written for c in cases if c.category == "markdown")
    with pytest.raises(BenchError):
        sample_cases(cases, 3, ["no-such-class"])


def test_pcm_is_handed_to_whisper_as_16_khz_float() -> None:
    tone = (0.5 * np.sin(2 * np.pi * 440 * np.arange(24_000) / 24_000) * 32767).astype("<i2")
    audio = whisper_audio(tone.tobytes(), 24_000)
    assert audio.dtype == np.float32 and audio.size == WHISPER_RATE
    assert float(np.max(np.abs(audio))) == pytest.approx(0.5, abs=0.01)
    assert whisper_audio(b"", 24_000).size == 0


# ---- the real round trip -------------------------------------------------------------------

CLEAR = [
    Case(
        "time",
        "Most pharmacies here are open from 9 AM to 9 PM on weekdays.",
        ("Most pharmacies here are open from nine a m to nine p m on weekdays.",),
    ),
    Case("plain", "Build succeeded in four seconds.", ("Build succeeded in four seconds.",)),
]


@pytest.mark.model
def test_the_real_server_heard_by_the_real_whisper(server) -> None:
    from speech_judge.asr_whisper import Transcriber

    hear = Transcriber(threads=1)
    found, timing = judge(CLEAR, {PROJECT: project_speaker(server.http)}, hear, NORMALIZE)
    transcripts = [item.transcript for item in found]
    assert tallies(found)[ALL][PROJECT].wer <= 0.15, transcripts
    assert timing[PROJECT]["audio_s"]["median"] > 1.0
    # The same transcript against a sentence that was never said scores high: the judge
    # listens, it does not pass everything.
    never_said = score(
        ["Send the quarterly invoice to our billing team."], transcripts[0], NORMALIZE
    )
    assert never_said.wer >= 0.8 and never_said.start_missing and never_said.end_missing

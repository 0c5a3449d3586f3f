"""The outside judge's own parts: the generated sentences, the comparison and the triage."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from devkit.speech_corpus import fold_phonemes
from speech_judge import speech_triage as triage
from speech_judge.speech_diff import (
    Outcome,
    as_spoken,
    compare,
    first_per_class,
    summary,
    table,
    triaged,
)
from speech_judge.speech_templates import CLASSES, TEMPLATES, Sentence, generate

# Every class of the corpus a normalizer judges by its text (heteronym, markdown, emoji and
# control are judged otherwise).
JUDGED = {
    "abbreviation", "cardinal", "currency", "digits", "fraction", "math", "mixed", "ordinal",
    "plain", "range", "roman", "slash_date", "symbols", "time", "unit", "url_email", "version",
    "year",
}  # fmt: skip


@pytest.fixture(scope="module")
def sentences() -> list[Sentence]:
    return generate()


def test_the_generated_set_covers_every_judged_class_with_a_hundred_sentences(
    sentences: list[Sentence],
) -> None:
    assert set(CLASSES) == JUDGED
    counts = Counter(s.category for s in sentences)
    assert set(counts) == JUDGED
    assert min(counts.values()) >= 100
    assert len({s.written for s in sentences}) == len(sentences)  # none written twice


def test_generation_is_deterministic_and_seeded(sentences: list[Sentence]) -> None:
    assert generate() == sentences
    assert generate(seed=1) != sentences
    # One class's sentences do not depend on which other classes are generated.
    alone = generate(classes=["time"])
    assert alone == [s for s in sentences if s.category == "time"]


def test_every_sentence_is_filled_and_names_its_template(sentences: list[Sentence]) -> None:
    for s in sentences:
        assert "{" not in s.written and "}" not in s.written
        assert s.template in TEMPLATES[s.category]
        assert ".." not in s.written.replace("...", "")


def test_the_brief_s_hard_cases_are_in_the_set(sentences: list[Sentence]) -> None:
    text = "\n".join(s.written for s in sentences)
    for needle in ("a.m.", "p.m.", "AM", "pm", "Mon–", "incl.", "Rm.", "approx.", "est.",
                   "ft. wide", "oz. jars", "bps", "e-", "×10^", "⁻", "!=", "==", "&&", "||",
                   "->", "port ", "ext", "#"):  # fmt: skip
        assert needle in text, needle


def test_first_per_class_keeps_the_first_n_of_each_class(sentences: list[Sentence]) -> None:
    kept = first_per_class(sentences, 3)
    assert Counter(s.category for s in kept) == dict.fromkeys(JUDGED, 3)
    assert kept[:3] == [s for s in sentences if s.category == kept[0].category][:3]


def test_phonemes_are_compared_without_stress_spacing_or_punctuation() -> None:
    assert fold_phonemes("ðə kˈæt, sˈæt.") == fold_phonemes("ðəkæt sæt") == "ðəkætsæt"
    assert fold_phonemes("kˈæt") != fold_phonemes("kˈʌt")


def test_nemo_s_reading_is_put_in_the_corpus_conventions() -> None:
    written = "The avg. is 10:30 a.m., see the FAQ and the AM radio."
    nemo = "The AVG. is ten thirty AM, see the FAQ and the AM radio."
    # Capitals NeMo made up are spelled; the sentence's own stay words; AM and PM are letters.
    assert as_spoken(nemo, written) == (
        "The A V G. is ten thirty A M, see the FAQ and the A M radio."
    )
    assert as_spoken("one hundred and fifty three", "") == "one hundred fifty-three"
    assert as_spoken("two dollars five cents", "") == "two dollars and five cents"
    assert as_spoken("thirty ninth and a half", "") == "thirty-ninth and a half"
    # "and" only goes where it is inside a number.
    assert as_spoken("four and one third", "") == "four and one third"


def test_the_comparison_is_at_the_phonemes_of_the_real_front_end() -> None:
    same = Sentence("time", "t", "Meet at 10:30 a.m.")
    other = Sentence("unit", "u", "Cut 4 in. off each end.")
    readings = {same.written: "Meet at ten thirty AM", other.written: "Cut four in. off each end."}
    agree, disagree = compare([same, other], readings)
    assert agree.agree and not disagree.agree
    assert disagree.project == "Cut four inches off each end."
    assert disagree.nemo == "Cut four in. off each end."


def _outcome(written: str, agree: bool, category: str = "time") -> Outcome:
    return Outcome(category, "t", written, "project", "nemo", agree)


def test_triage_counts_corpus_rows_then_project_patterns_then_reference_mistakes(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project.tsv"
    project.write_text("# header\nregex\t\\bZIP\\b\tZIP spelled\n", encoding="utf-8")
    reference = tmp_path / "reference.tsv"
    reference.write_text(
        "regex\t~\\d\tNeMo joins approximately\nsentence\tOpen at 9am.\tNeMo, exactly\n",
        encoding="utf-8",
    )
    outcomes = [
        _outcome("Agreed.", True),
        _outcome("Your ZIP is ~5 digits.", False),  # both patterns: the project's first
        _outcome("It takes ~30 minutes.", False),
        _outcome("Open at 9am.", False),
        _outcome("Open at 9am. Really.", False),  # not the sentence exactly
        _outcome("Row in the corpus, ZIP too.", False, "digits"),
    ]
    rows = {"Row in the corpus, ZIP too."}
    result = triaged(outcomes, rows, project, reference)
    assert [o.status for o in result] == [
        "",
        triage.PROJECT,
        triage.WRONG,
        triage.WRONG,
        triage.OPEN,
        triage.CORPUS,
    ]
    assert result[2].reason == "NeMo joins approximately"
    classes = summary(result)
    assert classes["time"] == {
        "sentences": 5, "agree": 1, triage.OPEN: 1, triage.CORPUS: 0, triage.PROJECT: 1,
        triage.WRONG: 2,
    }  # fmt: skip
    assert classes["digits"][triage.CORPUS] == 1
    assert "all" in table(classes)


@pytest.mark.parametrize(
    "line",
    ["regex\t(unclosed\tbroken", "glob\t*.txt\tno such kind", "regex\tonly two"],
)
def test_a_broken_entry_is_refused(tmp_path: Path, line: str) -> None:
    path = tmp_path / "known.tsv"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"known\.tsv:1"):
        triage.read_known(path)


@pytest.mark.parametrize(
    "path", [triage.REFERENCE_WRONG, triage.PROJECT_WRONG], ids=lambda p: p.name
)
def test_every_known_pattern_parses_and_matches_a_generated_sentence(
    path: Path, sentences: list[Sentence]
) -> None:
    entries = triage.read_known(path)
    # The project's known problems may all be fixed (then its file holds only its header).
    assert entries or path == triage.PROJECT_WRONG
    for entry in entries:
        assert entry.reason
        assert any(entry.matches(s.written) for s in sentences), (entry.line, entry.pattern)

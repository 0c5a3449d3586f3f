"""Format of the normalization data in tests/container/data: every .tsv parses, so broken data
fails CI before any normalizer runs on it.

Checked per file: column count, known classes, the minimum cases per class, backslash escapes
that decode, readings that are words (no digits) and free of control characters, no duplicate
written forms, heteronym sense entries that name a word of their sentence, and the README's
generated counts. The format is described in tests/container/data/README.md.

    python -m tests.container.test_corpus_format   # prints the README's counts section
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
ASSISTANT = "en_assistant_corpus.tsv"
README = DATA / "README.md"
ALTERNATIVES = " || "

ASSISTANT_CLASSES = frozenset(
    {
        "time",
        "year",
        "cardinal",
        "digits",
        "ordinal",
        "roman",
        "range",
        "slash_date",
        "fraction",
        "version",
        "math",
        "currency",
        "unit",
        "abbreviation",
        "heteronym",
        "markdown",
        "emoji",
        "symbols",
        "url_email",
        "control",
        "mixed",
        "plain",
    }
)
# The earlier English table keeps its own categories.
LEGACY_CLASSES = frozenset(
    {
        "money",
        "percent",
        "decimal",
        "cardinal",
        "ordinal",
        "year",
        "decade",
        "range",
        "time",
        "date",
        "phone",
        "measure",
        "temperature",
        "fraction",
        "url",
        "email",
        "abbreviation",
        "symbol",
        "version",
        "multiplier",
        "mixed",
        "plain",
    }
)
LANGUAGE_CLASSES = frozenset(
    (
        "cardinal", "decimal", "ordinal", "currency", "date", "time", "percent", "year",
        "digits", "abbreviation",
    )
)  # fmt: skip
LANGUAGES = ("es", "fr", "it", "pt-br", "hi", "ja", "zh")
# What every per-language file must cover.
LANGUAGE_MUST_COVER = frozenset({"cardinal", "currency", "date", "time"})
MIN_PER_CLASS = 15  # assistant corpus
MIN_PER_LANGUAGE = 15

_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.?)", re.DOTALL)
_SIMPLE = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}
_SENSE = re.compile(r"^([A-Za-z]+)=([A-Za-z]+(?:-[A-Za-z]+)*)$")


class CorpusError(ValueError):
    pass


def decode(text: str) -> str:
    r"""Decodes \xHH, \uHHHH, \UHHHHHHHH, \t, \n, \r and \\; any other escape is an error."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if body[:1] in ("x", "u", "U") and len(body) > 1:
            code = int(body[1:], 16)
            if code > 0x10FFFF:
                raise CorpusError(f"escape out of range: \\{body}")
            return chr(code)
        if body in _SIMPLE:
            return _SIMPLE[body]
        raise CorpusError(f"unknown escape: \\{body}")

    return _ESCAPE.sub(one, text)


@dataclass(frozen=True)
class Case:
    line: int
    cls: str
    written: str
    spoken: tuple[str, ...]
    sense: tuple[tuple[str, str], ...]


def parse(text: str, name: str) -> tuple[list[Case], list[str]]:
    """Cases and a list of problems ("name:line: what"); an empty list means the file is sound."""
    cases: list[Case] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{name}:{number}"
        fields = line.split("\t")
        cls = fields[0]
        want = 4 if cls == "heteronym" and name == ASSISTANT else 3
        if len(fields) != want:
            problems.append(f"{where}: {len(fields)} columns, {cls!r} rows have {want}")
            continue
        try:
            written = decode(fields[1])
            readings = tuple(decode(r) for r in fields[2].split(ALTERNATIVES))
        except CorpusError as e:
            problems.append(f"{where}: {e}")
            continue
        if not written.strip():
            problems.append(f"{where}: empty written form")
        if written in seen:
            problems.append(f"{where}: written form repeats line {seen[written]}")
        seen.setdefault(written, number)
        for reading in readings:
            problems.extend(f"{where}: {p}" for p in _reading_problems(reading))
        if len(set(readings)) != len(readings):
            problems.append(f"{where}: a reading is listed twice")
        sense: tuple[tuple[str, str], ...] = ()
        if want == 4:
            sense, sense_problems = _sense(fields[3], written)
            problems.extend(f"{where}: {p}" for p in sense_problems)
        cases.append(Case(number, cls, written, readings, sense))
    return cases, problems


def _reading_problems(reading: str) -> list[str]:
    problems = []
    if not reading.strip() or reading != reading.strip():
        problems.append(f"empty reading or stray spaces around it: {reading!r}")
    if "||" in reading or "|" in reading:
        problems.append(f"a bar in a reading (alternatives are split by ' || '): {reading!r}")
    if any(ch.isdigit() for ch in reading):
        problems.append(f"digits in a reading (say numbers in words): {reading!r}")
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in reading):
        problems.append(f"control or format character in a reading: {reading!r}")
    return problems


def _sense(field: str, written: str) -> tuple[tuple[tuple[str, str], ...], list[str]]:
    entries: list[tuple[str, str]] = []
    problems: list[str] = []
    for entry in field.split("; "):
        match = _SENSE.match(entry)
        if not match:
            problems.append(f"sense entry is not word=RESPELLING: {entry!r}")
            continue
        word, hint = match.groups()
        if not re.search(rf"\b{word}\b", written):
            problems.append(f"sense word {word!r} is not in the written form")
        if not any(ch.isupper() for ch in hint):
            problems.append(f"respelling {hint!r} marks no stressed syllable in capitals")
        entries.append((word, hint))
    return tuple(entries), problems


def load(path: Path) -> tuple[list[Case], list[str]]:
    return parse(path.read_text(encoding="utf-8"), path.name)


def class_problems(name: str, cases: list[Case]) -> list[str]:
    counts = Counter(case.cls for case in cases)
    if name == ASSISTANT:
        known, required, minimum = ASSISTANT_CLASSES, ASSISTANT_CLASSES, MIN_PER_CLASS
    elif name == "en_normalization.tsv":
        known, required, minimum = LEGACY_CLASSES, frozenset(), 0
    else:
        known, required, minimum = LANGUAGE_CLASSES, LANGUAGE_MUST_COVER, 1
    problems = [f"{name}: unknown class {cls!r}" for cls in counts if cls not in known]
    problems += [
        f"{name}: class {cls!r} has {counts[cls]} cases, fewer than {minimum}"
        for cls in sorted(required)
        if counts[cls] < minimum
    ]
    return problems


def corpus_files() -> list[Path]:
    return sorted(DATA.glob("*.tsv"))


def counts_section() -> str:
    """The README's counts section, generated from the files."""
    assistant = Counter(case.cls for case in load(DATA / ASSISTANT)[0])
    out = [f"| {ASSISTANT} class | cases |", "|---|---:|"]
    out += [f"| {cls} | {n} |" for cls, n in assistant.items()]
    out += [f"| **total** | **{sum(assistant.values())}** |", ""]
    out += ["| file | cases | by class |", "|---|---:|---|"]
    for path in corpus_files():
        if path.name == ASSISTANT:
            continue
        counts = Counter(case.cls for case in load(path)[0])
        by_class = ", ".join(f"{cls} {n}" for cls, n in counts.items())
        out.append(f"| {path.name} | {sum(counts.values())} | {by_class} |")
    return "\n".join(out)


# --- the data as committed --------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_every_corpus_file_parses_cleanly(path: Path) -> None:
    cases, problems = load(path)
    problems += class_problems(path.name, cases)
    assert cases, f"{path.name} has no cases"
    assert not problems, "\n".join(problems)


def test_every_language_has_its_file_and_the_assistant_corpus_is_wide() -> None:
    names = {p.name for p in corpus_files()}
    assert {f"{lang}_normalization.tsv" for lang in LANGUAGES} <= names
    for lang in LANGUAGES:
        cases, _ = load(DATA / f"{lang}_normalization.tsv")
        assert len(cases) >= MIN_PER_LANGUAGE, lang
    assistant, _ = load(DATA / ASSISTANT)
    assert len(assistant) >= 450
    assert {c.cls for c in assistant} == ASSISTANT_CLASSES


def test_control_cases_really_carry_control_characters() -> None:
    # The escapes must decode to characters the cleaner has to remove, not stay as text.
    cases, _ = load(DATA / ASSISTANT)
    control = [c for c in cases if c.cls == "control"]
    for case in control:
        assert "\\" not in case.written, case.line
        assert any(
            unicodedata.category(ch) in ("Cc", "Cf", "Zs") and ch != " " for ch in case.written
        ), case.line


def test_readme_counts_match_the_files() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- counts:begin -->\n(.*?)\n<!-- counts:end -->", text, re.DOTALL)
    assert match, "README.md lost its counts markers"
    assert match.group(1) == counts_section(), (
        "README counts are stale: run `python -m tests.container.test_corpus_format`"
    )


# --- the checker catches broken data ----------------------------------------------------------


def test_decode_handles_every_documented_escape() -> None:
    assert decode(r"a\x1b[0m\u200b\U0001F389\t\n\r\\z") == "a\x1b[0m\u200b\U0001f389\t\n\r\\z"


@pytest.mark.parametrize("bad", [r"\q", "trailing\\", r"\x1", r"\u12", r"\UFFFFFFFF"])
def test_decode_rejects_what_the_format_does_not_define(bad: str) -> None:
    with pytest.raises(CorpusError):
        decode(bad)


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("time\tAt 2pm.", "2 columns"),
        ("time\tAt 2pm.\tAt two p m.\textra", "4 columns"),
        ("heteronym\tA bass.\tA bass.", "3 columns"),
        ("time\tAt 2pm.\tAt 2 p m.", "digits in a reading"),
        ("time\tAt 2pm.\tAt two p m. ||  At two.", "stray spaces"),
        ("time\tAt 2pm.\tAt two p m. || At two p m.", "listed twice"),
        ("time\tAt 2pm.\tAt two p m. | At two.", "a bar"),
        ("control\tBad \\q escape.\tBad escape.", "unknown escape"),
        ("control\tA\\x07 bell.\tA\\x07 bell.", "control or format character"),
        ("heteronym\tA bass.\tA bass.\tbass:BASE", "not word=RESPELLING"),
        ("heteronym\tA bass.\tA bass.\ttrout=TROWT", "not in the written form"),
        ("heteronym\tA bass.\tA bass.\tbass=base", "no stressed syllable"),
    ],
)
def test_parse_reports_each_kind_of_broken_row(line: str, complaint: str) -> None:
    _, problems = parse(f"# header\n{line}\n", ASSISTANT)
    assert any(complaint in p for p in problems), problems


def test_parse_reports_duplicates_with_both_lines() -> None:
    _, problems = parse("plain\tHi.\tHi.\nplain\tOk.\tOk.\nplain\tHi.\tHi.\n", ASSISTANT)
    assert problems == [f"{ASSISTANT}:3: written form repeats line 1"]


def test_class_checks_report_unknown_and_thin_classes() -> None:
    cases, _ = parse("weather\tIt rains.\tIt rains.\ntime\tAt 2pm.\tAt two p m.\n", ASSISTANT)
    problems = class_problems(ASSISTANT, cases)
    assert f"{ASSISTANT}: unknown class 'weather'" in problems
    assert f"{ASSISTANT}: class 'time' has 1 cases, fewer than {MIN_PER_CLASS}" in problems
    cases, _ = parse("cardinal\tHay 3.\tHay tres.\n", "es_normalization.tsv")
    assert "es_normalization.tsv: class 'currency' has 0 cases, fewer than 1" in class_problems(
        "es_normalization.tsv", cases
    )


if __name__ == "__main__":
    print(counts_section())

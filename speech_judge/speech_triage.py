"""Which disagreements with the reference normalizer are already accounted for.

A disagreement of speech_judge/speech_diff.py is triaged when, in this order,
- the corpus holds it: its written sentence is a row of en_assistant_corpus.tsv or of a
  staging file given with --rows (same format), so the speech evaluation judges the project's
  reading against what a careful speaker says;
- the project is wrong there in a known way: speech_judge/data/speech_diff_project_wrong.tsv names
  the problem (a regular expression on the written sentence) and the corpus or the staging
  file holds a few rows of it, so the rows judge the fix and the rest need no row each;
- the reference is wrong there: speech_judge/data/speech_diff_reference_wrong.tsv names its written
  sentence (exactly, or by a regular expression) with the reason.
Every other disagreement is open.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from devkit.speech_corpus import read_corpus

DATA = Path(__file__).resolve().parent / "data"
REFERENCE_WRONG = DATA / "speech_diff_reference_wrong.tsv"
PROJECT_WRONG = DATA / "speech_diff_project_wrong.tsv"

OPEN = "open"
CORPUS = "corpus"
PROJECT = "project wrong"
WRONG = "reference wrong"


@dataclass(frozen=True)
class Known:
    """Sentences whose disagreement is explained: a pattern (or one sentence) and why."""

    pattern: re.Pattern[str]
    reason: str
    line: int

    def matches(self, written: str) -> bool:
        return self.pattern.search(written) is not None


def read_known(path: Path) -> list[Known]:
    """`regex<TAB>PATTERN<TAB>reason` (searched in the written sentence) or
    `sentence<TAB>WRITTEN<TAB>reason` (that sentence exactly); `#` lines are comments."""
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not fields[2].strip():
            raise ValueError(f"{path.name}:{number}: want kind, pattern and reason, tab-separated")
        kind, pattern, reason = fields
        if kind == "regex":
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{path.name}:{number}: {exc}") from exc
        elif kind == "sentence":
            compiled = re.compile(f"^{re.escape(pattern)}$")
        else:
            raise ValueError(f"{path.name}:{number}: kind must be regex or sentence, not {kind!r}")
        entries.append(Known(compiled, reason.strip(), number))
    return entries


def corpus_sentences(paths: Iterable[Path]) -> set[str]:
    return {case.written for path in paths for case in read_corpus(path)}


@dataclass(frozen=True)
class Verdict:
    status: str  # OPEN, CORPUS, PROJECT or WRONG
    reason: str = ""


def triage(written: str, rows: set[str], project: list[Known], reference: list[Known]) -> Verdict:
    # A corpus row first: there the project's reading is judged, whatever the reference did;
    # then what the project gets wrong, which must not hide behind the reference's mistakes.
    if written in rows:
        return Verdict(CORPUS)
    for status, entries in ((PROJECT, project), (WRONG, reference)):
        for entry in entries:
            if entry.matches(written):
                return Verdict(status, entry.reason)
    return Verdict(OPEN)

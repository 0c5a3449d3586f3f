"""An outside judge for the speech corpus: this project's front end against NVIDIA NeMo's.

    python -m speech_judge.speech_diff [--limit N] [--classes time,unit] [--rows FILE]
                                                               (make speech-diff)

Generated assistant-style sentences (speech_judge/speech_templates.py, every class the corpus
judges by its text) go through
- the project: the server's text front end with the American voice, real espeak-ng
  (devkit.speech_corpus.load_frontend, voice af_heart);
- the reference: NeMo text processing's English normalizer (cased, deterministic), in its
  own virtual environment (.venv-nemo, created here on first use; speech_judge/nemo_worker.py), its
  reading then phonemized by the same front end.
The two are compared where the listener meets them, as phonemes with stress, spacing and
punctuation folded away (the corpus' own fold). Before phonemizing, NeMo's reading is put in
the corpus' spoken conventions: a capitalised token NeMo made up is spelled (capitals are
letters in NeMo's output: "MS" is "M S"; its AM and PM always are), the "and" after hundred,
thousand, ... inside a number is dropped, "and" joins dollars and cents, and the tens take
their hyphen (tests/container/data/README.md: "one hundred fifty", "two dollars and five
cents", "forty-five"; espeak-ng says "thirty nine" and "thirty-nine" differently).

Each disagreement is open or triaged (speech_judge/speech_triage.py): the corpus holds the sentence
(the corpus or a --rows staging file), the project is wrong there in a way the corpus has
rows for (speech_judge/data/speech_diff_project_wrong.tsv), or the reference is wrong there
(speech_judge/data/speech_diff_reference_wrong.tsv says why). Prints the agreement per class and
the open disagreements (--list all: every one, with its verdict); writes
speech_judge/results/speech_diff.json. NeMo's readings are cached in its virtual environment, so a
second run costs only the project's side (seconds).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from devkit.paths import OUT_DIR
from devkit.speech_corpus import CORPUS as CORPUS_FILE
from devkit.speech_corpus import VOICE, fold_phonemes, load_frontend
from speech_judge import RESULTS_DIR, ROOT
from speech_judge.speech_templates import CLASSES, Sentence, generate
from speech_judge.speech_triage import (
    CORPUS,
    OPEN,
    PROJECT,
    PROJECT_WRONG,
    REFERENCE_WRONG,
    WRONG,
    corpus_sentences,
    read_known,
    triage,
)

RESULTS = RESULTS_DIR / "speech_diff.json"
WORKER = Path(__file__).with_name("nemo_worker.py")
DEFAULT_VENV = ROOT / ".venv-nemo"
# The newest release and the pynini it pins; pynini 2.1.6.post1 ships a CPython 3.12 wheel.
NEMO_PACKAGES = ("nemo-text-processing==1.2.0", "pynini==2.1.6.post1")


# ---- the reference's environment and readings ---------------------------------------------


def nemo_python(venv: Path) -> Path:
    """NeMo's interpreter, creating its virtual environment on first use."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"Creating {venv} for {' and '.join(NEMO_PACKAGES)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = "import nemo_text_processing, pynini"
    if subprocess.run([python, "-c", probe], capture_output=True).returncode:
        print(f"Installing {' '.join(NEMO_PACKAGES)} into {venv} (a minute) ...", flush=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", *NEMO_PACKAGES], check=True)
    return python


def nemo_readings(venv: Path, sentences: Sequence[str]) -> dict[str, str]:
    """NeMo's normalized text for each sentence: from the cache, the rest from the worker."""
    cache_path = venv / "speech_diff_readings.json"
    cache: dict[str, str] = {}
    if cache_path.exists():
        stored = json.loads(cache_path.read_text(encoding="utf-8"))
        if stored.get("packages") == list(NEMO_PACKAGES):
            cache = stored["readings"]
    missing = [s for s in dict.fromkeys(sentences) if s not in cache]
    if missing:
        python = nemo_python(venv)
        print(f"NeMo: {len(missing)} sentences to normalize ({len(cache)} cached)", flush=True)
        cache.update(_run_worker(python, venv / "grammars", missing))
        payload = {"packages": list(NEMO_PACKAGES), "readings": cache}
        cache_path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    return {s: cache[s] for s in sentences}


def _run_worker(python: Path, grammars: Path, sentences: list[str]) -> dict[str, str]:
    grammars.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [str(python), str(WORKER), str(grammars)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert process.stdin is not None and process.stdout is not None
    stdin = process.stdin

    def feed() -> None:  # in its own thread: the worker's output pipe must not fill up
        for sentence in sentences:
            stdin.write(json.dumps(sentence, ensure_ascii=False) + "\n")
        stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    readings = {}
    for line in process.stdout:
        answer = json.loads(line)
        readings[answer["written"]] = answer["spoken"]
    writer.join()
    if process.wait() or len(readings) != len(set(sentences)):
        raise RuntimeError(f"NeMo worker failed (exit {process.returncode}, {len(readings)} read)")
    return readings


# ---- the comparison ---------------------------------------------------------------------

_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")
_UNITS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    "|eighty|ninety"
)
_NUMBER_AND = re.compile(rf"\b(hundred|thousand|million|billion|trillion) and (?=(?:{_UNITS})\b)")
_TENS_UNITS = re.compile(
    r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety) "
    r"(one|two|three|four|five|six|seven|eight|nine|first|second|third|fourth|fifth|sixth"
    r"|seventh|eighth|ninth)\b"
)
_CENTS = re.compile(rf"\b(dollars?|euros?|pounds?) ((?:(?:{_UNITS})[ -]?)+ (?:cents?|pence)\b)")


def as_spoken(nemo: str, written: str) -> str:
    """NeMo's reading in the corpus' spoken conventions (see the module's docstring)."""
    own = set(re.findall(r"\w+", written))
    spelled = _CAPITALS.sub(
        lambda m: m[0] if m[0] in own and m[0] not in ("AM", "PM") else " ".join(m[0]), nemo
    )
    spelled = _TENS_UNITS.sub(r"\1-\2", _NUMBER_AND.sub(r"\1 ", spelled))
    return _CENTS.sub(r"\1 and \2", spelled)


@dataclass(frozen=True)
class Outcome:
    category: str
    template: str
    written: str
    project: str  # the project's normalized text
    nemo: str  # NeMo's normalized text, as NeMo wrote it
    agree: bool
    status: str = ""  # for a disagreement: OPEN, CORPUS or WRONG
    reason: str = ""


def compare(sentences: Sequence[Sentence], readings: dict[str, str]) -> list[Outcome]:
    frontend = load_frontend()
    outcomes = []
    for done, sentence in enumerate(sentences, 1):
        nemo = readings[sentence.written]
        try:
            ours = frontend(sentence.written, VOICE)
            project, mine = ours.normalized, fold_phonemes(ours.phonemes)
        except ValueError as exc:  # a refused sentence is a disagreement, with why
            project, mine = f"error: {exc}", ""
        theirs = fold_phonemes(frontend(as_spoken(nemo, sentence.written), VOICE).phonemes)
        outcomes.append(
            Outcome(
                sentence.category,
                sentence.template,
                sentence.written,
                project,
                nemo,
                bool(mine) and mine == theirs,
            )
        )
        if done % 500 == 0:
            print(f"project: {done}/{len(sentences)} sentences compared", flush=True)
    return outcomes


def triaged(
    outcomes: Iterable[Outcome], rows: set[str], project_file: Path, reference_file: Path
) -> list[Outcome]:
    project, reference = read_known(project_file), read_known(reference_file)
    out = []
    for outcome in outcomes:
        if outcome.agree:
            out.append(outcome)
            continue
        verdict = triage(outcome.written, rows, project, reference)
        out.append(
            Outcome(**{**asdict(outcome), "status": verdict.status, "reason": verdict.reason})
        )
    return out


# ---- the report -------------------------------------------------------------------------


def summary(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    per_class: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        row = per_class[o.category]
        row["sentences"] += 1
        row["agree"] += o.agree
        if not o.agree:
            row[o.status] += 1
    keys = ("sentences", "agree", OPEN, CORPUS, PROJECT, WRONG)
    return {name: {k: row[k] for k in keys} for name, row in sorted(per_class.items())}


def table(classes: dict[str, dict[str, int]]) -> str:
    head = (
        f"{'class':<14} {'agree':>11} {'%':>6}   "
        f"{'open':>5} {'corpus':>6} {'project':>7} {'reference':>9}"
    )
    lines = [head, "-" * len(head)]
    total: Counter[str] = Counter()
    for name, row in classes.items():
        total.update(row)
        lines.append(_row(name, row))
    lines += ["-" * len(head), _row("all", total)]
    return "\n".join(lines)


def _row(name: str, row: dict[str, int]) -> str:
    n, agree = row["sentences"], row["agree"]
    share = 100.0 * agree / max(n, 1)
    return (
        f"{name:<14} {agree:>5}/{n:<5} {share:>6.1f}   "
        f"{row[OPEN]:>5} {row[CORPUS]:>6} {row[PROJECT]:>7} {row[WRONG]:>9}"
    )


def print_disagreements(outcomes: Sequence[Outcome], which: str) -> None:
    for o in outcomes:
        if o.agree or (which == "open" and o.status != OPEN):
            continue
        tag = o.status if o.status == OPEN else f"{o.status}{': ' + o.reason if o.reason else ''}"
        print(f"\n[{o.category}] ({tag}) {o.written}\n  project: {o.project}\n  nemo:    {o.nemo}")


def with_disagreements(result: dict[str, Any], outcomes: Sequence[Outcome]) -> str:
    """The result as JSON, each disagreement on one line (1,400 of them stay readable)."""
    head = json.dumps(result, indent=2, ensure_ascii=False)[:-2]
    rows = [
        json.dumps({k: v for k, v in asdict(o).items() if k != "agree"}, ensure_ascii=False)
        for o in outcomes
        if not o.agree
    ]
    return head + ',\n  "disagreements": [\n    ' + ",\n    ".join(rows) + "\n  ]\n}\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speech_judge.speech_diff", description=__doc__)
    parser.add_argument("--per-class", type=int, default=200, help="generated per class")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0, help="at most N sentences per class")
    parser.add_argument("--classes", default="", help="comma-separated classes (default all)")
    parser.add_argument(
        "--rows",
        type=Path,
        action="append",
        default=[],
        help="a staging file in the corpus format: its sentences count as triaged",
    )
    parser.add_argument("--list", choices=("open", "all", "none"), default="open")
    parser.add_argument("--nemo-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--project-wrong", type=Path, default=PROJECT_WRONG)
    parser.add_argument("--reference-wrong", type=Path, default=REFERENCE_WRONG)
    args = parser.parse_args(argv)
    unknown = set(filter(None, args.classes.split(","))) - set(CLASSES)
    if unknown:
        parser.error(f"unknown classes {sorted(unknown)}; known: {', '.join(CLASSES)}")
    return args


def first_per_class(sentences: Sequence[Sentence], limit: int) -> list[Sentence]:
    seen: Counter[str] = Counter()
    kept = []
    for sentence in sentences:
        seen[sentence.category] += 1
        if seen[sentence.category] <= limit:
            kept.append(sentence)
    return kept


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    classes = [c for c in CLASSES if c in set(args.classes.split(","))] or list(CLASSES)
    sentences = generate(args.per_class, args.seed, classes)
    if args.limit:
        sentences = first_per_class(sentences, args.limit)
    started = time.monotonic()
    readings = nemo_readings(args.nemo_venv, [s.written for s in sentences])
    rows = corpus_sentences([CORPUS_FILE, *args.rows])
    outcomes = triaged(compare(sentences, readings), rows, args.project_wrong, args.reference_wrong)
    classes_summary = summary(outcomes)
    if args.list != "none":
        print_disagreements(outcomes, args.list)
    print()
    print(table(classes_summary))
    total = Counter(o.status for o in outcomes if not o.agree)
    triaged_count = total[CORPUS] + total[PROJECT] + total[WRONG]
    print(
        f"\ndisagreements: {sum(total.values())}: open {total[OPEN]}, triaged {triaged_count} "
        f"(corpus rows {total[CORPUS]}, project wrong by a known pattern {total[PROJECT]}, "
        f"reference wrong {total[WRONG]}); {time.monotonic() - started:.0f} s"
    )
    result: dict[str, Any] = {
        "reference": list(NEMO_PACKAGES),
        "voice": VOICE,
        "arguments": {
            "per_class": args.per_class,
            "seed": args.seed,
            "limit": args.limit,
            "classes": classes,
            "rows": [str(path) for path in args.rows],
        },
        "classes": classes_summary,
    }
    path = results_path(partial=bool(args.limit) or len(classes) < len(CLASSES))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(with_disagreements(result, outcomes), encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


def results_path(*, partial: bool) -> Path:
    """Where a run's result goes: a partial run (--limit, some --classes) under out/, so it
    never replaces the committed full result."""
    return OUT_DIR / RESULTS.name if partial else RESULTS


if __name__ == "__main__":
    raise SystemExit(main())

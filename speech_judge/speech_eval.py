"""What the voice says for what assistants write: the per-class table over the corpus.

    python -m speech_judge.speech_eval [--wrong N] [--classes time,year]     (make speech-eval)

Every row of tests/container/data/en_assistant_corpus.tsv goes through the server's text
front end (TextFrontend, American English voice, the real espeak-ng); its phonemes must equal
those of one of the accepted readings through the same front end (a capital letter standing
alone said by its name), and each heteronym must get the phonemes of its sense
(devkit/speech_corpus.py says how). The table shows the phoneme verdict, which decides, and
beside it whether the normalized text matched.
Prints the per-class table and the heteronym comparison (espeak-ng alone against espeak-ng
with this project's context rules; with --misaki-python, misaki too, run by an interpreter
that has misaki and spaCy: speech_judge/misaki_worker.py), each other Kokoro language's share, and
writes speech_judge/results/speech_eval.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from typing import Any

from devkit.speech_corpus import (
    LANGUAGE_FILES,
    Case,
    SenseJudge,
    evaluate,
    evaluate_language,
    read_corpus,
    word_phonemes,
)
from speech_judge import RESULTS_DIR, ROOT

RESULTS = RESULTS_DIR / "speech_eval.json"
TARGET = 97.0  # per class, on the phonemes


def table(result: dict[str, Any]) -> str:
    """Per class: rows right on the phonemes (the verdict) and on the normalized text."""
    head = f"{'class':<14} {'phonemes':>9} {'%':>6}   {'text':>9} {'%':>6}"
    lines = [head, "-" * len(head)]
    total = right = text = 0
    for name, row in result["classes"].items():
        share = 100.0 * row["correct"] / row["cases"]
        text_share = 100.0 * row["text_correct"] / row["cases"]
        flag = "" if share >= TARGET else f"  < {TARGET:g}"
        lines.append(
            f"{name:<14} {row['correct']:>4}/{row['cases']:<4} {share:>6.1f}   "
            f"{row['text_correct']:>4}/{row['cases']:<4} {text_share:>6.1f}{flag}"
        )
        total += row["cases"]
        right += row["correct"]
        text += row["text_correct"]
    lines.append("-" * len(head))
    lines.append(
        f"{'all':<14} {right:>4}/{total:<4} {100.0 * right / max(total, 1):>6.1f}   "
        f"{text:>4}/{total:<4} {100.0 * text / max(total, 1):>6.1f}"
    )
    h = result["heteronyms"]
    lines += [
        "",
        f"heteronym senses right ({h['senses']} in the corpus):",
        f"  espeak-ng alone            {h['espeak-ng alone']:>3}/{h['senses']}",
        f"  espeak-ng + context rules  {h['espeak-ng + context rules']:>3}/{h['senses']}",
    ]
    return "\n".join(lines)


def misaki_senses(python: str, cases: list[Case]) -> int:
    """Heteronym senses misaki gets right (speech_judge/misaki_worker.py in `python`)."""
    rows = [c for c in cases if c.senses]
    proc = subprocess.run(
        [python, "-m", "speech_judge.misaki_worker"],
        input=json.dumps([c.written for c in rows]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    judge = SenseJudge(cases)
    right = 0
    for case, words in zip(rows, json.loads(proc.stdout), strict=True):
        counts: dict[str, int] = {}
        pairs = [(text, phonemes) for text, phonemes in words]
        for word, spelling in case.senses:
            n = counts.get(word.lower(), 0)
            counts[word.lower()] = n + 1
            phonemes = word_phonemes(pairs, word, n)
            right += phonemes is not None and judge.right(word, spelling, phonemes)
    return right


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m speech_judge.speech_eval", description=__doc__)
    parser.add_argument("--wrong", type=int, default=0, help="print N wrong rows per class")
    parser.add_argument("--classes", default="", help="comma-separated classes (default all)")
    parser.add_argument(
        "--misaki-python",
        default="",
        help="an interpreter with misaki and spaCy: also judge misaki on the heteronym rows",
    )
    args = parser.parse_args(argv)
    cases = read_corpus()
    if args.classes:
        keep = set(args.classes.split(","))
        cases = [c for c in cases if c.category in keep]
    result = evaluate(cases)
    print(table(result))
    if not args.classes:
        print("\nother languages (phonemes of the written form = those of a reading):")
        result["languages"] = {}
        for language in LANGUAGE_FILES:
            rows = evaluate_language(language)["classes"]
            right = sum(r["correct"] for r in rows.values())
            cases = sum(r["cases"] for r in rows.values())
            result["languages"][language] = {"correct": right, "cases": cases}
            print(f"  {language:<6} {right:>3}/{cases:<3} {100.0 * right / cases:>6.1f}")
    for name, rows in result["wrong"].items():
        for row in rows[: args.wrong]:
            print(
                f"\n[{name}] {row['written']!r}\n  said: {row['said']}\n  want: {row['want']}"
                f"\n  heard:  {row.get('heard', '')}\n  wanted: {row.get('wanted', '')}"
            )
    if args.misaki_python:
        result["heteronyms"]["misaki (no tagger)"] = misaki_senses(args.misaki_python, cases)
        right = result["heteronyms"]["misaki (no tagger)"]
        print(f"  misaki, no tagger          {right:>3}/{result['heteronyms']['senses']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

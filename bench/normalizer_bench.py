"""English normalizers compared: accuracy on the test table and latency per sentence.

    python -m bench.normalizer_bench [--runs 3] [--python nemo=PATH --python gruut=PATH]

Each candidate runs in a subprocess (its own interpreter if given: NeMo and gruut pin
dependencies this project does not use) over the 194 sentences of
tests/container/data/en_normalization.tsv. Accuracy: the candidate's output, phonemized by
espeak-ng en-us, says the same as what a person says (stress and punctuation aside), as the
test checks it. Latency: per sentence, median and p95 over `runs` passes; cold start is
import + set-up + the first sentence. Prints a table and writes bench/results/normalizer.json.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.stats import percentile
from kokoro_server.text.phonemes import Phonemizer

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "container" / "data" / "en_normalization.tsv"
RESULTS = ROOT / "bench" / "results" / "normalizer.json"
CANDIDATES = ("rules+num2words", "nemo", "gruut")
_PROSODY = re.compile(r"[ˈˌ\s.,;:!?¿¡—…\"“”«»()\-]")


def read_table() -> list[tuple[str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            _, written, spoken = line.split("\t")
            rows.append((written, spoken))
    return rows


def run_candidate(candidate: str, python: str, sentences: list[str], runs: int) -> dict[str, Any]:
    proc = subprocess.run(
        [python, "-m", "bench.normalizer_worker", candidate, str(runs)],
        input=json.dumps(sentences),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return {"candidate": candidate, "error": last[:200]}
    return {"candidate": candidate, **json.loads(proc.stdout)}


def score(result: dict[str, Any], rows: list[tuple[str, str]], g2p: Phonemizer) -> dict[str, Any]:
    if "error" in result:
        return result

    def said(text: str) -> str:
        return _PROSODY.sub("", g2p(text))

    right = [
        said(out) == said(spoken) for out, (_, spoken) in zip(result["outputs"], rows, strict=True)
    ]
    wrong = [w for ok, (w, _) in zip(right, rows, strict=True) if not ok]
    latencies = result["latencies_s"]
    return {
        "candidate": result["candidate"],
        "correct": sum(right),
        "cases": len(rows),
        "p50_ms": percentile(latencies, 50) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
        "cold_s": result["cold_s"],
        "wrong_examples": wrong[:8],
    }


def table(scores: list[dict[str, Any]]) -> str:
    lines = [
        f"{'normalizer':<18} {'correct':>9} {'p50 ms':>8} {'p95 ms':>8} {'cold s':>7}",
        "-" * 54,
    ]
    for s in scores:
        if "error" in s:
            lines.append(f"{s['candidate']:<18} not run: {s['error']}")
            continue
        correct = f"{s['correct']}/{s['cases']}"
        lines.append(
            f"{s['candidate']:<18} {correct:>9} {s['p50_ms']:>8.2f} {s['p95_ms']:>8.2f} "
            f"{s['cold_s']:>7.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.normalizer_bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--python", action="append", default=[], help="CANDIDATE=interpreter (default: this one)"
    )
    args = parser.parse_args(argv)
    interpreters = dict(item.split("=", 1) for item in args.python)
    rows = read_table()
    sentences = [written for written, _ in rows]
    g2p = Phonemizer("en-us")
    scores = [
        score(
            run_candidate(c, interpreters.get(c, sys.executable), sentences, args.runs), rows, g2p
        )
        for c in CANDIDATES
    ]
    print(table(scores))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps({"runs": args.runs, "scores": scores}, indent=2), encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

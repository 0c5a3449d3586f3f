"""The English normalization table: (category, written, spoken) rows from
tests/container/data/en_normalization.tsv (also the accuracy set of bench/normalizer_bench.py)."""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "container" / "data" / "en_normalization.tsv"


def cases() -> list[tuple[str, str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            category, written, spoken = line.split("\t")
            rows.append((category, written, spoken))
    return rows


CASES = cases()

"""The English normalization table: (category, written, spoken) rows from
tests/container/data/en_normalization.tsv (also the accuracy set of the normalizer study in
docs/performance.md), and one rule family's table on its own (the per-family tests)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from kokoro_server.text.normalize import say
from kokoro_server.text.normalize.core import claims, group, spoken_text

TABLE = Path(__file__).resolve().parents[1] / "container" / "data" / "en_normalization.tsv"


def cases() -> list[tuple[str, str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            category, written, spoken = line.split("\t")
            rows.append((category, written, spoken))
    return rows


CASES = cases()


def family_says(family: ModuleType, text: str, british: bool = False) -> str:
    """The sentence with only one English rule family's table applied (families/)."""
    return spoken_text(group(text, claims(text, family.rules(british))))


def family_test(family: ModuleType, cases: list[tuple[str, str]]) -> Callable[[str, str], None]:
    """A test that each written form is said the same by the whole English normalizer and by
    the family's table alone: the family owns the form, and no earlier rule takes it."""

    @pytest.mark.parametrize(("text", "expected"), cases)
    def test(text: str, expected: str) -> None:
        assert say(text, "en-us") == expected
        assert family_says(family, text) == expected

    return test


def variant_test(
    family: ModuleType, cases: list[tuple[str, str, str]]
) -> Callable[[str, str, str], None]:
    """As `family_test`, for forms the American and British voices read differently."""

    @pytest.mark.parametrize(("text", "american", "british"), cases)
    def test(text: str, american: str, british: str) -> None:
        assert (say(text, "en-us"), say(text, "en-gb")) == (american, british)
        alone = (family_says(family, text), family_says(family, text, british=True))
        assert alone == (american, british)

    return test

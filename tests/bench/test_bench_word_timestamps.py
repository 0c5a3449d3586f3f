"""The word-timestamp cost benchmark's pairing: same sentence and run, second mode vs first."""

from __future__ import annotations

import pytest

from bench.word_timestamps_cost import paired, paired_table


def test_pairs_compare_the_same_sentence_and_run() -> None:
    samples = {"without": [1.0, 2.0, 4.0], "with": [1.5, 1.0, 4.0]}
    pairs = paired(samples)
    assert pairs["extra ms"] == pytest.approx([500.0, -1000.0, 0.0])
    assert pairs["ratio"] == pytest.approx([1.5, 0.5, 1.0])
    table = paired_table(pairs)
    assert table.rows[1][:3] == ["ratio", "3", "1.000"]  # the median pair, not a mean


def test_unpaired_samples_are_refused() -> None:
    with pytest.raises(ValueError):
        paired({"without": [1.0, 2.0], "with": [1.0]})

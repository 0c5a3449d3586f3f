"""The statistics helper on known inputs, and cross-checked against numpy's definition."""

from __future__ import annotations

import numpy as np
import pytest

from devkit.stats import median, percentile, summarize


def test_median_odd_and_even() -> None:
    assert median([5.0, 1.0, 3.0]) == 3.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_p95_of_five_runs_lies_between_the_two_slowest() -> None:
    # rank = 0.95 * (5 - 1) = 3.8 -> 4 + 0.8 * (5 - 4)
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)


def test_extremes_and_single_value() -> None:
    values = [3.0, 1.0, 2.0]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 3.0
    assert percentile([7.0], 95) == 7.0


@pytest.mark.parametrize("q", [5, 25, 50, 90, 95, 99])
def test_matches_numpy_linear_percentile(q: float) -> None:
    rng = np.random.default_rng(1234)
    values = rng.gamma(2.0, 0.3, size=37).tolist()
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_summarize_known_sample() -> None:
    summary = summarize([0.2, 0.4, 0.1, 0.3, 0.5])
    assert summary["n"] == 5
    assert summary["median"] == pytest.approx(0.3)
    assert summary["p95"] == pytest.approx(0.48)
    assert summary["min"] == 0.1
    assert summary["max"] == 0.5
    assert summary["mean"] == pytest.approx(0.3)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)
    with pytest.raises(ValueError, match="between 0 and 100"):
        percentile([1.0], 101)
    with pytest.raises(ValueError, match="empty"):
        summarize([])

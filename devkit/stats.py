"""Summary statistics for benchmark and timing samples (no numpy needed, exact and documented)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks.

    Same definition as numpy's default ("linear"): rank = q/100 * (n - 1).
    """
    if not values:
        raise ValueError("percentile of an empty sample")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be between 0 and 100, got {q}")
    ordered = sorted(values)
    rank = q / 100.0 * (len(ordered) - 1)
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50.0)


def summarize(values: Sequence[float]) -> dict[str, float]:
    """n, median, p95, min, max and mean of a sample."""
    if not values:
        raise ValueError("cannot summarize an empty sample")
    return {
        "n": len(values),
        "median": median(values),
        "p95": percentile(values, 95.0),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }

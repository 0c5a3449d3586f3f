"""A partial `make speech-diff` run never replaces the committed full result."""

from __future__ import annotations

from devkit.paths import OUT_DIR
from speech_judge.speech_diff import RESULTS, results_path


def test_a_partial_run_writes_under_out() -> None:
    assert results_path(partial=True) == OUT_DIR / "speech_diff.json"
    assert results_path(partial=True) != RESULTS


def test_a_full_run_writes_the_committed_result() -> None:
    assert results_path(partial=False) == RESULTS
    assert RESULTS.parent.name == "results"

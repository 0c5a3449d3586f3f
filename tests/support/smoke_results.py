"""What the smoke-check tests assert of a `CheckResult` first: that it passed with both
timings measured, or that it failed for the expected cause."""

from __future__ import annotations

from smoke.diagnosis import Cause, Diagnosis
from smoke.result import CheckResult


def passed_timings(result: CheckResult) -> tuple[float, float]:
    """A check that must have passed: its (first audio, total) milliseconds."""
    assert result.ok, result.diagnosis
    assert result.first_audio_ms is not None and result.total_ms is not None, result
    return result.first_audio_ms, result.total_ms


def diagnosed(result: CheckResult, cause: Cause) -> Diagnosis:
    """A check that must have failed for `cause`: its diagnosis."""
    assert result.diagnosis is not None, f"passed, expected {cause}: {result.detail}"
    assert result.diagnosis.cause is cause, result.diagnosis
    return result.diagnosis

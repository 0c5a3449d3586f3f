"""What one check reports: time to first audio and a one-line detail, or its diagnosis."""

from __future__ import annotations

import time
from dataclasses import dataclass

from smoke.diagnosis import Diagnosis


@dataclass(frozen=True)
class CheckResult:
    name: str
    first_audio_ms: float | None = None  # from the start of the call
    total_ms: float | None = None
    detail: str = ""
    diagnosis: Diagnosis | None = None
    # What the container reported about itself: the ONNX Runtime provider in use, and the
    # real-time factor (its synthesis time over the audio duration), when the check saw them.
    provider: str | None = None
    real_time_factor: float | None = None

    @property
    def ok(self) -> bool:
        return self.diagnosis is None


def failed(name: str, diagnosis: Diagnosis) -> CheckResult:
    return CheckResult(name, diagnosis=diagnosis)


def elapsed_ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)

"""Overload detection (capacity.py) and its settings, without a server."""

from __future__ import annotations

import pytest

from kokoro_server.config import Settings
from kokoro_server.serving.capacity import CapacityMeter, over_capacity


def test_capacity_is_audio_per_model_second_over_recent_jobs() -> None:
    meter = CapacityMeter(workers=1, window=2)
    assert meter.streams() is None  # nothing measured yet
    meter.record(audio_s=3.0, synth_s=1.0)
    assert meter.streams() == pytest.approx(3.0)
    meter.record(audio_s=1.0, synth_s=1.0)
    assert meter.streams() == pytest.approx(2.0)  # 4 s of audio in 2 s
    meter.record(audio_s=1.0, synth_s=1.0)  # the first job left the window
    assert meter.streams() == pytest.approx(1.0)


def test_capacity_scales_with_workers_and_ignores_empty_jobs() -> None:
    meter = CapacityMeter(workers=2)
    meter.record(audio_s=0.0, synth_s=0.5)  # empty text: says nothing about speed
    meter.record(audio_s=2.0, synth_s=0.0)
    assert meter.streams() is None
    meter.record(audio_s=2.0, synth_s=1.0)
    assert meter.streams() == pytest.approx(4.0)


def test_a_jobs_cost_is_a_line_through_recent_jobs_by_length() -> None:
    meter = CapacityMeter(workers=1, window=3)
    assert meter.cost_s(100) is None  # nothing measured yet
    meter.record(audio_s=1.0, synth_s=0.5, chars=50)
    assert meter.cost_s(400) == pytest.approx(0.5)  # one length seen: the mean job
    meter.record(audio_s=3.0, synth_s=1.5, chars=150)
    assert meter.cost_s(100) == pytest.approx(1.0)  # 0.01 s per character
    assert meter.cost_s(250) == pytest.approx(2.5)
    meter.record(audio_s=1.0, synth_s=0.15, chars=200)
    meter.record(audio_s=1.0, synth_s=0.15, chars=170)  # the window holds the last three
    assert meter.cost_s(80) == pytest.approx((1.5 + 0.15 + 0.15) / 3)  # no trend: the mean


@pytest.mark.parametrize(
    ("speaking", "streams", "max_load", "refused"),
    [
        (0, 0.5, 1.0, False),  # the first speaker is always admitted, however slow
        (1, 2.9, 1.0, False),  # 2 streams fit in 2.9
        (2, 2.9, 1.0, True),  # 3 would not
        (2, 2.9, 1.2, False),  # 3 <= 1.2 x 2.9
        (5, None, 1.0, False),  # nothing measured yet
        (5, 0.5, 0.0, False),  # the check is off
    ],
)
def test_over_capacity(speaking: int, streams: float | None, max_load: float, refused: bool):
    assert over_capacity(speaking, streams, max_load) is refused


def test_scheduler_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KOKORO_SCHEDULER", "KOKORO_SCHEDULER_MAX_OVERTAKES", "KOKORO_MAX_LOAD"):
        monkeypatch.delenv(name, raising=False)
    assert Settings.from_env().scheduler == "deadline"
    monkeypatch.setenv("KOKORO_SCHEDULER", "fifo")
    monkeypatch.setenv("KOKORO_SCHEDULER_MAX_OVERTAKES", "5")
    monkeypatch.setenv("KOKORO_MAX_LOAD", "0.8")
    settings = Settings.from_env()
    assert (settings.scheduler, settings.scheduler_max_overtakes, settings.max_load) == (
        "fifo",
        5,
        0.8,
    )
    monkeypatch.setenv("KOKORO_SCHEDULER", "edf")
    with pytest.raises(ValueError, match="KOKORO_SCHEDULER must be one of deadline, fifo"):
        Settings.from_env()


def test_preemption_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KOKORO_PREEMPT_MAX", "KOKORO_PREEMPT_SLACK_S"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KOKORO_PREEMPT_MAX", "2")
    monkeypatch.setenv("KOKORO_PREEMPT_SLACK_S", "0.5")
    settings = Settings.from_env()
    assert (settings.preempt_max, settings.preempt_slack_s) == (2, 0.5)
    monkeypatch.setenv("KOKORO_PREEMPT_MAX", "once")
    with pytest.raises(ValueError, match="KOKORO_PREEMPT_MAX must be an integer"):
        Settings.from_env()

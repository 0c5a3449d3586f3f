"""The simulated real-time player on a hand-driven clock: playback starts with the first audio,
runs while audio is buffered, and waits through an underrun."""

from __future__ import annotations

from pytest import approx

from devkit.playback import PlaybackClock, pcm_ms


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_playback_follows_the_audio_that_arrived() -> None:
    now = Clock()
    player = PlaybackClock(now)
    assert player.played_ms() == 0.0
    player.feed(500)  # half a second arrives at t=100
    now.t += 0.2
    assert player.played_ms() == approx(200.0)
    now.t += 0.5  # ran dry at 500 ms; 200 ms of silence since
    assert player.played_ms() == approx(500.0)
    player.feed(300)  # playback resumes from here, not from where the clock "would" be
    now.t += 0.1
    assert player.played_ms() == approx(600.0)


def test_audio_arriving_faster_than_real_time_is_buffered() -> None:
    now = Clock()
    player = PlaybackClock(now)
    for _ in range(4):
        player.feed(250)  # a second of audio, all at once
    assert player.received_ms == 1000.0 and player.played_ms() == approx(0.0)
    now.t += 0.75
    assert player.played_ms() == approx(750.0)


def test_pcm_is_counted_in_samples() -> None:
    assert pcm_ms(b"\x00\x00" * 24_000, 24_000) == 1000.0
    assert pcm_ms(b"\x00\x00" * 80, 8_000) == 10.0

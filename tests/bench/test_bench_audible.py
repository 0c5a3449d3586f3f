"""bench/audible.py: where the first audible sample of received PCM lies, and the pauses."""

from __future__ import annotations

import numpy as np
import pytest

from bench.audible import first_audible_s, first_sound_s, pause_between, shape

RATE = 24_000


def pcm(*parts: tuple[float, float]) -> bytes:
    """(milliseconds, amplitude) runs of a 300 Hz tone (amplitude 0: digital silence)."""
    chunks = []
    for ms, amplitude in parts:
        n = round(ms * RATE / 1000)
        chunks.append(amplitude * np.sin(2 * np.pi * 300 * np.arange(n) / RATE))
    samples = np.concatenate(chunks)
    return (samples * 32767).round().astype("<i2").tobytes()


def test_the_first_audible_window_not_the_first_byte():
    audio = pcm((270, 0.0), (500, 0.3), (700, 0.0))
    assert first_audible_s(audio, RATE) == pytest.approx(0.270)
    assert first_sound_s(1.0, audio, RATE) == pytest.approx(1.270)
    assert first_sound_s(None, audio, RATE) is None
    # Quieter than -50 dBFS (RMS) is not sound: a -55 dBFS hum before the speech.
    hum = 10 ** (-55 / 20) * np.sqrt(2)
    assert first_audible_s(pcm((100, hum), (200, 0.3)), RATE) == pytest.approx(0.100)
    assert first_audible_s(pcm((300, 0.0)), RATE) is None


def test_shape_finds_the_pauses_between_sounds():
    audio = pcm((20, 0.0), (400, 0.3), (420, 0.0), (300, 0.3), (100, 0.0), (300, 0.3), (60, 0.0))
    found = shape(audio, RATE)
    assert found.duration_s == pytest.approx(1.6)
    assert found.first_sound_s == pytest.approx(0.020)
    assert found.pauses_s == pytest.approx((0.420,))  # the 100 ms gap is under 150 ms
    assert found.trailing_s == pytest.approx(0.060)
    assert found.speech_s == pytest.approx(1.520)


def test_the_pause_heard_between_two_pieces_played_back_to_back():
    first = pcm((15, 0.0), (500, 0.3), (440, 0.0))
    second = pcm((15, 0.0), (300, 0.3))
    assert pause_between(first, second, RATE) == pytest.approx(0.455)
    assert pause_between(pcm((100, 0.0)), second, RATE) is None

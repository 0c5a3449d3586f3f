"""When the listener first hears something: the first audible sample of the audio received.

Time to the first audio *byte* counts any silence the audio starts with as if it were sound;
a listener hears the first *audible* sample. Every benchmark reports both: the first byte
(what the transport delivers) and the first sound (first byte + where the first audible
sample lies in the audio, since playback starts at the first byte and runs in real time).

Audible: a 5 ms window whose RMS reaches -50 dBFS (full scale = 32767), the threshold the
server trims by (engine/pacing.py), measured here on the 16-bit PCM the client received, by
this code alone, so the server's own trimming cannot vouch for itself. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THRESHOLD_DBFS = -50.0
WINDOW_MS = 5.0


def _loud_windows(pcm: bytes, sample_rate: int) -> tuple[np.ndarray, int]:
    """Indices of the audible windows of s16le mono PCM, and the window length in samples."""
    samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64) / 32767.0
    window = max(1, round(sample_rate * WINDOW_MS / 1000))
    count = -(-samples.size // window)
    padded = np.zeros(count * window)
    padded[: samples.size] = samples
    power = np.mean(padded.reshape(count, window) ** 2, axis=1) if count else np.zeros(0)
    return np.flatnonzero(power >= 10.0 ** (THRESHOLD_DBFS / 10.0)), window


def first_audible_s(pcm: bytes, sample_rate: int) -> float | None:
    """Seconds from the start of the PCM to its first audible window; None: all silent."""
    loud, window = _loud_windows(pcm, sample_rate)
    return None if loud.size == 0 else int(loud[0]) * window / sample_rate


def first_sound_s(first_byte_s: float | None, pcm: bytes, sample_rate: int) -> float | None:
    """When the first audible sample plays, for a listener who starts at the first byte."""
    if first_byte_s is None:
        return None
    offset = first_audible_s(pcm, sample_rate)
    return None if offset is None else first_byte_s + offset


@dataclass(frozen=True)
class Shape:
    """Where the sound is in a stretch of audio (seconds)."""

    duration_s: float  # all of it, silence included
    first_sound_s: float | None  # leading silence
    speech_s: float  # first to last audible sample
    pauses_s: tuple[float, ...]  # silent runs of at least min_pause_s between sounds
    trailing_s: float  # silence after the last audible sample


def shape(pcm: bytes, sample_rate: int, min_pause_s: float = 0.15) -> Shape:
    """The audio's length, its leading silence, and the pauses inside it, in order."""
    loud, window = _loud_windows(pcm, sample_rate)
    duration = len(pcm) // 2 / sample_rate
    if loud.size == 0:
        return Shape(duration, None, 0.0, (), duration)
    gaps = (np.diff(loud) - 1) * window / sample_rate
    pauses = tuple(float(g) for g in gaps if g >= min_pause_s)
    start = int(loud[0]) * window / sample_rate
    end = min(duration, (int(loud[-1]) + 1) * window / sample_rate)
    return Shape(duration, start, end - start, pauses, duration - end)


def pause_between(first: bytes, second: bytes, sample_rate: int) -> float | None:
    """The silence a listener hears from the last sound of `first` to the first of `second`
    (played back to back)."""
    loud, window = _loud_windows(first, sample_rate)
    start = first_audible_s(second, sample_rate)
    if loud.size == 0 or start is None:
        return None
    tail = len(first) // 2 / sample_rate - (int(loud[-1]) + 1) * window / sample_rate
    return max(0.0, tail) + start

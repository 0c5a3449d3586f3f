"""Trim the model's own silence from every call, then pause the way a reader pauses.

Kokoro wraps every call in silence: about 270 ms before the first sound and 700 ms after the
last, whatever the text. Sent as it is, every sentence of an answer starts late and the gaps
between sentences (about 1 s) sound halting; a first clause released early gets the same
full stop after its comma. So each call's audio is cut to its audible span, and the piece
gets the pause its ending calls for, at its end (the first sound of an answer comes at once;
what separates two pieces is the pause after the first).

Audible: a window of `window_ms` whose RMS reaches `threshold_dbfs` (full scale = 1.0). The
kept span runs from `lead_ms` before the first audible window to `tail_ms` after the last,
so the onset and the decay stay whole. A word's release can be quieter than that line and
come later: a final stop's burst follows its closure (40-100 ms of near silence) at about
-60 dBFS, a fricative fades below -50 dBFS for tens of milliseconds. So the span also runs
to the last window within `release_ms` after the last audible one whose RMS reaches
`release_dbfs` (well above the model's own silence, about -85 dBFS), plus the fade. The
`fade_ms` ramps at both cut edges keep the cut from clicking. Several calls of one piece
(over 510 phonemes) are trimmed alike and joined with the pause of what ended each call
(`Speech.joins`).

Word times follow every cut: a time inside a kept span moves with it, a time in a cut
silence moves to the nearest kept edge, so words stay in order, non-overlapping and inside
the audio. The returned audio is a whole number of milliseconds long (the pause absorbs the
rounding), so `synthesis_complete.duration_s` is exact and clocks that add durations up
stay on the sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from kokoro_server.config import Settings
from kokoro_server.engine.word_times import WordTiming
from kokoro_server.model_facts import SAMPLE_RATE

MIN_PAUSE_SCALE = 0.0
MAX_PAUSE_SCALE = 4.0
_SAMPLES_PER_MS = SAMPLE_RATE // 1000


# What ended a piece (text/segmenter.py `Piece.ending`); each has a pause setting in
# config.py (KOKORO_PAUSE_<ENDING>_MS), with defaults close to reading aloud.
ENDINGS = ("sentence", "question", "paragraph", "clause", "hard", "end")


def _pauses(settings: Settings) -> dict[str, float]:
    return {ending: float(getattr(settings, f"pause_{ending}_ms")) for ending in ENDINGS}


@dataclass(frozen=True)
class Pacing:
    """Trimming and pause settings (config.py reads them from KOKORO_TRIM_* / KOKORO_PAUSE_*).

    enabled False: the model's audio as it is (its own silence, no pauses), for comparison.
    """

    enabled: bool = True
    threshold_dbfs: float = -50.0
    window_ms: float = 5.0
    lead_ms: float = 15.0
    tail_ms: float = 40.0
    fade_ms: float = 5.0
    release_dbfs: float = -70.0
    release_ms: float = 200.0
    pauses_ms: Mapping[str, float] = field(default_factory=lambda: _pauses(Settings()))

    def __post_init__(self) -> None:
        if not -120.0 <= self.threshold_dbfs < 0.0:
            raise ValueError(f"trim threshold must be in [-120, 0) dBFS, got {self.threshold_dbfs}")
        if not 0.0 < self.window_ms <= 100.0:
            raise ValueError(f"trim window must be in (0, 100] ms, got {self.window_ms}")
        if not -120.0 <= self.release_dbfs <= self.threshold_dbfs:
            raise ValueError(
                f"trim release level must be in [-120, {self.threshold_dbfs}] dBFS (at most the "
                f"threshold), got {self.release_dbfs}"
            )
        margins = (
            ("lead", self.lead_ms),
            ("tail", self.tail_ms),
            ("fade", self.fade_ms),
            ("release", self.release_ms),
        )
        for name, value in margins:
            if not 0.0 <= value <= 1000.0:
                raise ValueError(f"trim {name} must be in [0, 1000] ms, got {value}")
        if set(self.pauses_ms) != set(ENDINGS):
            raise ValueError(f"pauses_ms needs exactly the endings {', '.join(ENDINGS)}")
        for ending, ms in self.pauses_ms.items():
            if not 0.0 <= ms <= 10_000.0:
                raise ValueError(f"pause after {ending} must be in [0, 10000] ms, got {ms}")

    @classmethod
    def from_settings(cls, settings: Settings) -> Pacing:
        # Every other field is a trimming setting: `trim_<field>` (KOKORO_TRIM_<FIELD>).
        trim = {
            name: getattr(settings, f"trim_{name}")
            for name in (f.name for f in fields(cls))
            if name not in ("enabled", "pauses_ms")
        }
        return cls(enabled=settings.pacing, pauses_ms=_pauses(settings), **trim)

    def pause_ms(self, ending: str, scale: float = 1.0) -> float:
        if ending not in self.pauses_ms:
            raise ValueError(f"ending must be one of {', '.join(ENDINGS)}, got {ending!r}")
        return self.pauses_ms[ending] * scale


@dataclass(frozen=True)
class Paced:
    audio: np.ndarray  # float32 mono at 24 kHz, a whole number of milliseconds
    words: tuple[WordTiming, ...] | None
    lead_cut_ms: float  # silence cut before the first kept sample (first call)
    pause_ms: float  # silence added at the end (after rounding to a whole millisecond)
    cut_peak_dbfs: float  # the loudest sample of all that was cut (-inf: nothing was)


def _loud_windows(audio: np.ndarray, level_dbfs: float, window: int) -> np.ndarray:
    """Indices of the windows (from the first sample; the last one zero-padded) whose RMS
    reaches the level."""
    if audio.size == 0:
        return np.zeros(0, np.intp)
    count = -(-audio.size // window)
    padded = np.zeros(count * window, np.float64)
    padded[: audio.size] = audio
    power = np.mean(padded.reshape(count, window) ** 2, axis=1)
    return np.flatnonzero(power >= 10.0 ** (level_dbfs / 10.0))


def audible_span(audio: np.ndarray, threshold_dbfs: float, window: int) -> tuple[int, int] | None:
    """[start, end) of the windows whose RMS reaches the threshold; None if none does."""
    loud = _loud_windows(audio, threshold_dbfs, window)
    if loud.size == 0:
        return None
    return int(loud[0]) * window, min(audio.size, (int(loud[-1]) + 1) * window)


def release_end(audio: np.ndarray, end: int, release_dbfs: float, window: int, reach: int) -> int:
    """Where the release after the audible span ends: the end of the last window within
    `reach` samples after `end` whose RMS reaches `release_dbfs`; `end` if none does."""
    quiet = _loud_windows(audio[end : end + reach], release_dbfs, window)
    if quiet.size == 0:
        return end
    return min(audio.size, end + (int(quiet[-1]) + 1) * window)


def _samples(ms: float) -> int:
    return round(ms * SAMPLE_RATE / 1000.0)


def _faded(part: np.ndarray, fade: int, fade_in: bool, fade_out: bool) -> np.ndarray:
    """A copy with short linear ramps at the edges that were cut (no click at a cut)."""
    part = part.astype(np.float32, copy=True)
    n = min(fade, part.size // 2)
    if n > 0:
        ramp = np.linspace(0.0, 1.0, n + 1, dtype=np.float32)[1:]
        if fade_in:
            part[:n] *= ramp
        if fade_out:
            part[-n:] *= ramp[::-1]
    return part


def _peak_dbfs(parts: Sequence[np.ndarray]) -> float:
    peak = max((float(np.max(np.abs(p))) for p in parts if p.size), default=0.0)
    return 20.0 * float(np.log10(peak)) if peak > 0.0 else -math.inf


@dataclass(frozen=True)
class _Kept:
    source: int  # first kept sample in the model's audio
    length: int
    target: int  # where it lands in the paced audio
    call_end: int  # end of its call in the model's audio


def pace(
    audio: np.ndarray,
    words: Sequence[WordTiming] | None,
    pacing: Pacing,
    ending: str,
    *,
    call_samples: Sequence[int] = (),
    joins: Sequence[str] = (),
    scale: float = 1.0,
) -> Paced:
    """Trim every call of one piece, join them, add the ending's pause; move the words.

    call_samples: the length of each model call's audio, in order (default: one call);
    joins: what ended each call but the last (`clause` or `hard`); scale: the session's
    `pause_scale` (margins and fades do not scale).
    """
    if not MIN_PAUSE_SCALE <= scale <= MAX_PAUSE_SCALE:
        raise ValueError(f"pause scale must be in [{MIN_PAUSE_SCALE}, {MAX_PAUSE_SCALE}]")
    pause_ms = pacing.pause_ms(ending, scale)  # checks the ending even when disabled
    if not pacing.enabled:
        return Paced(audio, None if words is None else tuple(words), 0.0, 0.0, -math.inf)
    lengths = list(call_samples) or [audio.size]
    if sum(lengths) != audio.size:
        raise ValueError(f"calls of {sum(lengths)} samples for {audio.size} samples of audio")
    if len(joins) != len(lengths) - 1:
        raise ValueError(f"{len(joins)} joins for {len(lengths)} calls")
    trimmed = _trim_calls(audio, lengths, joins, pacing, scale)
    kept = trimmed.kept
    moved = None if words is None else tuple(_move(w, kept) for w in words)
    if not any(span.length for span in kept):
        # Nothing audible (e.g. a piece with no phonemes): no pause either, so the piece
        # stays empty and the session reports it as having nothing to say.
        empty = np.zeros(0, np.float32)
        return Paced(empty, moved, lead_cut_ms=0.0, pause_ms=0.0, cut_peak_dbfs=trimmed.cut_peak)
    pause = _samples(pause_ms)
    pause += -(trimmed.length + pause) % _SAMPLES_PER_MS  # a whole number of milliseconds
    parts = [*trimmed.parts, np.zeros(pause, np.float32)]
    paced = np.concatenate(parts).astype(np.float32, copy=False)
    return Paced(
        paced,
        moved,
        lead_cut_ms=1000.0 * kept[0].source / SAMPLE_RATE,
        pause_ms=1000.0 * pause / SAMPLE_RATE,
        cut_peak_dbfs=trimmed.cut_peak,
    )


@dataclass(frozen=True)
class _Trimmed:
    parts: list[np.ndarray]  # each call's kept audio, with the pause of its join after it
    kept: list[_Kept]
    length: int  # samples in parts
    cut_peak: float  # dBFS of the loudest sample cut


def _trim_calls(
    audio: np.ndarray, lengths: Sequence[int], joins: Sequence[str], pacing: Pacing, scale: float
) -> _Trimmed:
    """Each call trimmed to its audible span (plus margins, faded), joined by its pause."""
    window = max(1, _samples(pacing.window_ms))
    lead, tail, fade = _samples(pacing.lead_ms), _samples(pacing.tail_ms), _samples(pacing.fade_ms)
    reach = _samples(pacing.release_ms)
    parts: list[np.ndarray] = []
    cut: list[np.ndarray] = []
    kept: list[_Kept] = []
    position = 0  # in the paced audio
    call_start = 0
    for number, length in enumerate(lengths):
        call = audio[call_start : call_start + length]
        span = audible_span(call, pacing.threshold_dbfs, window)
        start, end = 0, 0
        if span is not None:
            released = release_end(call, span[1], pacing.release_dbfs, window, reach)
            # The ramp falls after the release, on the quiet side: the burst stays whole.
            start, end = max(0, span[0] - lead), min(length, max(span[1] + tail, released + fade))
        parts.append(_faded(call[start:end], fade, start > 0, end < length))
        cut += [call[:start], call[end:]]
        kept.append(_Kept(call_start + start, end - start, position, call_start + length))
        position += end - start
        if number < len(joins):
            gap = _samples(pacing.pause_ms(joins[number], scale))
            parts.append(np.zeros(gap, np.float32))
            position += gap
        call_start += length
    return _Trimmed(parts, kept, position, _peak_dbfs(cut))


def _map(sample: int, kept: Sequence[_Kept]) -> int:
    """A sample of the model's audio -> its place in the paced audio (cut silence: an edge)."""
    for span in kept:
        if sample <= span.call_end or span is kept[-1]:
            inside = min(max(sample - span.source, 0), span.length)
            return span.target + inside
    raise AssertionError("unreachable")


def _move(word: WordTiming, kept: Sequence[_Kept]) -> WordTiming:
    start = _map(word.start_ms * _SAMPLES_PER_MS, kept)
    end = _map(word.end_ms * _SAMPLES_PER_MS, kept)
    return WordTiming(word.text, round(start / _SAMPLES_PER_MS), round(end / _SAMPLES_PER_MS))

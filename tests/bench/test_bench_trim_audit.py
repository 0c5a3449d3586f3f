"""bench/trim_audit.py's measurements on audio whose cuts are known to the sample."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from bench.trim_audit import edge, kept_span, last_phoneme
from kokoro_server.engine.pacing import Pacing, pace

RATE = 24_000


def speech_with_a_late_burst() -> np.ndarray:
    """300 ms of silence, 200 ms of tone, 50 ms closure, a 2 ms burst at -55 dBFS (under the
    -50 dBFS line in its 5 ms window, over the -70 dBFS release level), 600 ms of silence."""
    tone = 0.3 * np.sin(2 * np.pi * 200 * np.arange(200 * 24) / RATE)
    click = np.full(48, 10 ** (-55 / 20))
    parts = [np.zeros(300 * 24), tone, np.zeros(50 * 24), click, np.zeros(600 * 24)]
    return np.concatenate(parts).astype(np.float32)


def test_the_end_cut_is_measured_where_the_trimmer_cut():
    audio = speech_with_a_late_burst()
    # Without a release reach, the 40 ms tail ends before the burst: the audit finds it cut.
    pacing = Pacing(release_ms=0.0)
    paced = pace(audio, None, pacing, "sentence")
    start, end = kept_span(audio, paced, pacing)
    assert start == (300 - 15) * 24 and end == (300 + 200 + 40) * 24
    cut = edge(audio[end:], from_the_end=True)
    assert cut.peak_dbfs == pytest.approx(-55.0, abs=0.01)
    assert cut.peak_at_ms == pytest.approx(10.0)  # 50 ms closure - 40 ms tail
    assert cut.cut_ms == pytest.approx(audio.size / 24 - 540)
    # With it, the burst is kept and only digital silence is cut.
    paced = pace(audio, None, Pacing(), "sentence")
    start, end = kept_span(audio, paced, Pacing())
    assert edge(audio[end:], from_the_end=True).peak_dbfs == -math.inf
    lead = edge(audio[:start], from_the_end=False)
    assert lead.cut_ms == pytest.approx(285.0) and lead.peak_dbfs == -math.inf


def test_a_span_that_is_not_the_untrimmed_audio_is_refused():
    audio = speech_with_a_late_burst()
    pacing = Pacing()
    paced = pace(audio, None, pacing, "sentence")
    shifted = replace(paced, lead_cut_ms=paced.lead_cut_ms + 50.0)
    with pytest.raises(ValueError, match="not the untrimmed"):
        kept_span(audio, shifted, pacing)


def test_the_last_phoneme_skips_stress_length_and_punctuation():
    assert last_phoneme("stˈɑːp.") == "p"
    assert last_phoneme("ɡˌoʊ nˈɔːɹθ!") == "θ"
    assert last_phoneme(" ... ") == ""

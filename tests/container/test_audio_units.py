"""Audio encoding rules: clipping never wraps, resampling keeps duration, formats frame."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from kokoro_server.audio import encoding as audio


def test_samples_beyond_full_scale_clip_instead_of_wrapping():
    samples = np.array([0.0, 0.5, 1.0, 1.5, 40.0, -1.0, -1.7, -1e9], dtype=np.float32)
    pcm = np.frombuffer(audio.to_pcm16(samples), dtype="<i2")
    assert list(pcm) == [0, 16384, 32767, 32767, 32767, -32767, -32767, -32767]


@pytest.mark.parametrize("rate", audio.SAMPLE_RATES)
def test_resampling_keeps_duration(rate):
    tone = np.sin(np.linspace(0, 2 * np.pi * 440, 24000)).astype(np.float32) * 0.5
    pcm = audio.to_pcm16(tone, rate)
    assert len(pcm) // 2 == pytest.approx(rate, abs=2)


def test_wav_wraps_the_exact_pcm():
    pcm = audio.to_pcm16(np.linspace(-1, 1, 480, dtype=np.float32), 16000)
    with wave.open(io.BytesIO(audio.wav_bytes(pcm, 16000))) as wav:
        assert wav.getframerate() == 16000
        assert wav.readframes(wav.getnframes()) == pcm


def test_mp3_has_frame_sync_and_unknown_format_is_rejected():
    tone = np.sin(np.linspace(0, 2 * np.pi * 440, 24000)).astype(np.float32) * 0.5
    mp3 = audio.encode(tone, "mp3", 24000).data
    assert mp3[0] == 0xFF and mp3[1] & 0xE0 == 0xE0
    with pytest.raises(ValueError, match="format"):
        audio.encode(tone, "ogg", 24000)


def test_empty_audio_encodes_to_empty_pcm():
    assert audio.to_pcm16(np.zeros(0, np.float32), 16000) == b""

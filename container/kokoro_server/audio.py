"""Audio encoding: float samples -> PCM s16le, WAV or MP3, at the requested sample rate."""

from __future__ import annotations

import io
import wave

import lameenc
import numpy as np
import soxr

from .engine import SAMPLE_RATE

FORMATS = ("pcm", "wav", "mp3")
SAMPLE_RATES = (8000, 16000, 22050, 24000)
MP3_BITRATE_KBPS = 48
CONTENT_TYPES = {
    "pcm": "audio/pcm",
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
}


def to_pcm16(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> bytes:
    """Resample (soxr, high quality) and convert to 16-bit; clipped, never wrapped."""
    samples = np.asarray(audio, dtype=np.float32)
    if sample_rate != SAMPLE_RATE and samples.size:
        samples = soxr.resample(samples, SAMPLE_RATE, sample_rate, quality="HQ")
    clipped = np.clip(samples, -1.0, 1.0)
    return (clipped * 32767.0).round().astype("<i2").tobytes()


def wav_bytes(pcm: bytes, sample_rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm)
    return buffer.getvalue()


def mp3_bytes(pcm: bytes, sample_rate: int, bitrate_kbps: int = MP3_BITRATE_KBPS) -> bytes:
    """A complete MP3 stream per call, so each sentence's frames play on their own."""
    encoder = lameenc.Encoder()
    encoder.set_channels(1)
    encoder.set_in_sample_rate(sample_rate)
    encoder.set_bit_rate(bitrate_kbps)
    encoder.set_quality(5)  # 2 is best, 7 fastest; 5 is LAME's speed/quality middle
    return bytes(encoder.encode(pcm) + encoder.flush())


def encode(audio: np.ndarray, fmt: str, sample_rate: int) -> bytes:
    pcm = to_pcm16(audio, sample_rate)
    if fmt == "pcm":
        return pcm
    if fmt == "wav":
        return wav_bytes(pcm, sample_rate)
    if fmt == "mp3":
        return mp3_bytes(pcm, sample_rate)
    raise ValueError(f"format must be one of {FORMATS}")


def duration_s(audio: np.ndarray) -> float:
    return round(audio.size / SAMPLE_RATE, 3)

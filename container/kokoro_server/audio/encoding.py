"""Audio encoding: float samples -> PCM s16le, WAV, MP3, G.711 or Ogg Opus at the asked rate.

Every format starts from the same 16-bit PCM (resampled by soxr, clipped, never wrapped), so
all formats carry exactly the samples the `pcm` format would.
"""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from dataclasses import dataclass

import lameenc
import numpy as np
import soxr

from kokoro_server.audio import g711, ogg_opus
from kokoro_server.model_facts import SAMPLE_RATE

FORMATS = ("pcm", "wav", "mp3", "ulaw", "alaw", "opus")
PCM_RATES = (8000, 16000, 22050, 24000)
RATES = {  # the sample rates each format can be asked for
    **dict.fromkeys(("pcm", "wav", "mp3"), PCM_RATES),
    **dict.fromkeys(g711.LAWS, (g711.RATE,)),
    "opus": (ogg_opus.DECODE_RATE,),
}
DEFAULT_RATES = {
    **dict.fromkeys(("pcm", "wav", "mp3"), SAMPLE_RATE),
    **dict.fromkeys(g711.LAWS, g711.RATE),
    "opus": ogg_opus.DECODE_RATE,
}
SAMPLE_RATES = (*PCM_RATES, ogg_opus.DECODE_RATE)  # every rate a client may name
MP3_BITRATE_KBPS = 48
CONTENT_TYPES = {
    "pcm": "audio/pcm",
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "ulaw": "audio/PCMU",  # IANA names for G.711 (RFC 4856); always 8000 Hz mono here
    "alaw": "audio/PCMA",
    "opus": ogg_opus.CONTENT_TYPE,
}


@dataclass(frozen=True)
class Encoded:
    """Encoded audio; `frame_sizes`, when given, are units a binary frame must not split."""

    data: bytes
    frame_sizes: tuple[int, ...] = ()


def pcm_rate(fmt: str, rate: int) -> int:
    """The PCM rate a format is encoded from: Opus takes Kokoro's 24 kHz and decodes at 48."""
    return ogg_opus.INPUT_RATE if fmt == "opus" else rate


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


def encode_pcm(pcm: bytes, fmt: str, sample_rate: int) -> Encoded:
    """16-bit PCM at pcm_rate(fmt, sample_rate) -> the format."""
    if fmt == "pcm":
        return Encoded(pcm)
    if fmt == "wav":
        return Encoded(wav_bytes(pcm, sample_rate))
    if fmt == "mp3":
        return Encoded(mp3_bytes(pcm, sample_rate))
    if fmt in g711.LAWS:
        return Encoded(g711.encode(pcm, fmt))
    if fmt == "opus":
        pages = ogg_opus.encode(pcm, pcm_rate(fmt, sample_rate))
        # The two header pages travel with the first audio page: a client that stops after
        # any frame (a cancel) holds a stream with audio, which decoders accept; a stream of
        # headers alone makes FFmpeg drop every sentence chained after it.
        first = sum(len(page) for page in pages[:3])
        sizes = (first, *(len(page) for page in pages[3:])) if pages else ()
        return Encoded(b"".join(pages), sizes)
    raise ValueError(f"format must be one of {FORMATS}")


def encode(audio: np.ndarray, fmt: str, sample_rate: int) -> Encoded:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}")
    return encode_pcm(to_pcm16(audio, pcm_rate(fmt, sample_rate)), fmt, sample_rate)


def frames(data: bytes, frame_sizes: tuple[int, ...], max_bytes: int) -> Iterator[bytes]:
    """Binary frames: the given units (Ogg pages), else slices of at most max_bytes."""
    if frame_sizes:
        offset = 0
        for size in frame_sizes:
            yield data[offset : offset + size]
            offset += size
        return
    for offset in range(0, len(data), max_bytes):
        yield data[offset : offset + max_bytes]


def duration_s(audio: np.ndarray) -> float:
    return round(audio.size / SAMPLE_RATE, 3)

"""16-bit mono PCM to a WAV file (the demo's and the caller's saved audio)."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterable
from pathlib import Path


def write_wav(path: Path, pcm: bytes, sample_rate: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm)


def wav_frames(files: Iterable[bytes]) -> bytes:
    """The PCM frames of several WAV files (e.g. one per sentence), joined."""
    parts = []
    for data in files:
        with wave.open(io.BytesIO(data)) as wav:
            parts.append(wav.readframes(wav.getnframes()))
    return b"".join(parts)

"""The one WAV writer and reader of the tools (demo, caller, bench, tests): 16-bit mono PCM
and 8-bit G.711 (mu-law / A-law), in memory or to a file.

16-bit PCM is wrapped by the TTS server's own writer (`kokoro_server.audio.encoding`), so a
tool's WAV and the server's `wav` format are one and the same; Python's `wave` module writes
PCM only, so G.711 gets its RIFF chunks here (a non-PCM WAV carries a `fact` chunk with its
sample count).
"""

from __future__ import annotations

import io
import struct
import wave
from collections.abc import Iterable
from pathlib import Path

from kokoro_server.audio.encoding import wav_bytes as pcm_wav_bytes

G711_WAVE_FORMATS = {"ulaw": 7, "alaw": 6}  # WAVE_FORMAT_MULAW / WAVE_FORMAT_ALAW
PCM_FORMATS = {"pcm", "wav"}  # 16-bit samples (`wav`: already wrapped, see wav_frames)


def wav_bytes(audio: bytes, sample_rate: int, fmt: str = "pcm") -> bytes:
    """A WAV file around raw samples: 16-bit PCM (`pcm`) or 8-bit G.711 (`ulaw`, `alaw`)."""
    if fmt in G711_WAVE_FORMATS:
        return _g711_wav(audio, fmt, sample_rate)
    if fmt != "pcm":
        raise ValueError(f"no WAV for {fmt!r} samples (pcm, ulaw or alaw)")
    return pcm_wav_bytes(audio, sample_rate)


def write_wav(path: Path, audio: bytes, sample_rate: int, fmt: str = "pcm") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(wav_bytes(audio, sample_rate, fmt))


def read_wav(data: bytes) -> tuple[bytes, int]:
    """The PCM frames and sample rate of a 16-bit mono WAV file."""
    with wave.open(io.BytesIO(data)) as wav:
        if (wav.getnchannels(), wav.getsampwidth()) != (1, 2):
            raise ValueError("not a 16-bit mono WAV")
        return wav.readframes(wav.getnframes()), wav.getframerate()


def wav_frames(files: Iterable[bytes]) -> bytes:
    """The PCM frames of several WAV files (e.g. one per sentence), joined."""
    return b"".join(read_wav(data)[0] for data in files)


def _g711_wav(data: bytes, fmt: str, sample_rate: int) -> bytes:
    fmt_chunk = struct.pack(
        "<HHIIHHH", G711_WAVE_FORMATS[fmt], 1, sample_rate, sample_rate, 1, 8, 0
    )
    fact = struct.pack("<I", len(data))
    pad = b"\0" * (len(data) % 2)
    chunks = [
        b"fmt " + struct.pack("<I", len(fmt_chunk)) + fmt_chunk,
        b"fact" + struct.pack("<I", len(fact)) + fact,
        b"data" + struct.pack("<I", len(data)) + data + pad,
    ]
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body

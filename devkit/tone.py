"""Test double: deterministic tone instead of the model (tests and the concurrency benchmark).

The real Kokoro-82M model takes seconds per sentence on a shared CPU, too slow for hundreds
of fuzz examples or hundreds of sessions. `ToneSynthesisService` is the real
`SynthesisService` (same thread pool, same encoding, same readiness logic) whose engine is
replaced by `ToneEngine`: a sine tone whose length depends on the text and speed and whose
pitch depends on the text, so every sentence has a distinct, predictable audio payload.
Every run that uses it says so in its name and in docs/reliability.md.
"""

from __future__ import annotations

import dataclasses
import time
import zlib

import numpy as np

from kokoro_server.audio import encoding as audio
from kokoro_server.config import Settings
from kokoro_server.engine.model import Speech
from kokoro_server.engine.stop import Stopped, StopSignal
from kokoro_server.model_facts import MAX_SPEED, MIN_SPEED, SAMPLE_RATE, UnknownVoiceError
from kokoro_server.serving.synthesis import SynthesisService, freeze_loaded_heap

TONE_VOICES = ("tone_low", "tone_high")
MS_PER_CHAR = 10.0  # audio length per character at speed 1.0


class ToneEngine:
    """Same interface as KokoroEngine (voices, check_voice, synthesize), no model."""

    word_timestamps = False  # a tone has no per-token durations
    user_voices: frozenset[str] = frozenset()  # no voice files of a deployment's own
    provider = "tone test double (no model)"  # what /ping reports as the ONNX provider
    durations_missing = "the tone test double has no durations"

    def __init__(self, delay_s: float = 0.0) -> None:
        self.default_voice = TONE_VOICES[0]
        self.delay_s = delay_s  # simulated inference time per sentence (sleeps the worker)

    @property
    def voice_names(self) -> list[str]:
        return list(TONE_VOICES)

    def check_voice(self, voice: str) -> None:
        if voice not in TONE_VOICES:
            raise UnknownVoiceError(voice, self.voice_names)

    def synthesize(
        self, text: str, voice: str, speed: float = 1.0, stop: StopSignal | None = None
    ) -> np.ndarray:
        self.check_voice(voice)
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}")
        if self.delay_s:
            # The "inference" stops when told, as the model's RunOptions make the real one:
            # a cancel, a hang-up or a pre-emption (each attempt of a job has its own signal,
            # so a pre-empted tone job is stopped and rerun as a model call is).
            if stop is None:
                time.sleep(self.delay_s)
            elif stop.wait(self.delay_s):
                raise Stopped("tone synthesis stopped")
        return tone(text, voice, speed)

    def synthesize_timed(
        self, text: str, voice: str, speed: float = 1.0, stop: StopSignal | None = None
    ) -> Speech:
        return Speech(self.synthesize(text, voice, speed, stop), None)


def tone(text: str, voice: str, speed: float = 1.0) -> np.ndarray:
    """float32 samples at 24 kHz: 10 ms per character (scaled by 1/speed) plus 10 ms."""
    n = int(SAMPLE_RATE * (MS_PER_CHAR * (len(text) + 1) / 1000.0) / speed)
    base = 220.0 if voice == TONE_VOICES[0] else 440.0
    freq = base + zlib.crc32(text.encode("utf-8")) % 400
    t = np.arange(n, dtype=np.float32) / SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def tone_bytes(text: str, voice: str = TONE_VOICES[0], speed: float = 1.0) -> bytes:
    """The exact PCM payload the server must send for one sentence (24 kHz pcm)."""
    return audio.encode(tone(text, voice, speed), "pcm", SAMPLE_RATE).data


class ToneSynthesisService(SynthesisService):
    """Test double: deterministic tone instead of the model (see module docstring)."""

    def __init__(self, settings: Settings, delay_s: float = 0.0) -> None:
        # A tone has no silence to trim, and tests compare its exact payload (tone_bytes):
        # no pacing here. Pacing is tested on the real model and in tests of pacing.py.
        super().__init__(dataclasses.replace(settings, pacing=False))
        self.delay_s = delay_s

    def load(self) -> None:
        self.engine = ToneEngine(self.delay_s)  # type: ignore[assignment]
        freeze_loaded_heap()  # as the real service does once loaded
        self.state = "ready"
        self._ready.set()

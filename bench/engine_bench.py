"""The raw engine, in process and without a server: what the model alone costs on this machine."""

from __future__ import annotations

import time

import numpy as np

from bench.audible import first_sound_s
from bench.common import Sample
from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.model_files import locate
from kokoro_server.model_facts import SAMPLE_RATE
from kokoro_server.serving.synthesis import build_frontend


def load_engine() -> KokoroEngine:
    """The same settings the server reads (KOKORO_* variables), the same local weights."""
    settings = Settings.from_env()
    files = locate(settings.model_dir, settings.model_file)
    return KokoroEngine(settings, files, build_frontend(settings, files.vocab))


def model_calls(engine: KokoroEngine, text: str) -> int:
    """How many model calls `synthesize` makes for text (it splits over 510 phonemes)."""
    return len(plan_calls(engine.phonemize(text, engine.default_voice).words, engine.vocab))


def synthesize_sample(engine: KokoroEngine, text: str) -> Sample:
    """Phonemes + model for text in one blocking call; the audio exists only at the end."""
    started = time.perf_counter()
    audio = engine.synthesize(text, engine.default_voice)
    elapsed = time.perf_counter() - started
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()
    return {
        "ttfa_s": elapsed,
        # The model's audio as it comes, with the silence it starts with (no pacing).
        "first_sound_s": first_sound_s(elapsed, pcm, SAMPLE_RATE),
        "total_s": elapsed,
        "audio_s": audio.size / SAMPLE_RATE,
    }


def server_providers() -> list[str]:
    """The execution providers a server started here with these settings asks for.

    Same ONNX Runtime install and KOKORO_* settings as the local server, without loading a
    model; the first one is the provider in use.
    """
    from kokoro_server.engine.model import choose_providers

    return [p if isinstance(p, str) else p[0] for p in choose_providers(Settings.from_env())]

"""Kokoro-82M inference with ONNX Runtime: phonemes -> tokens -> 24 kHz float audio.

Runs on the CUDA execution provider when the GPU build of ONNX Runtime sees a device, on the
CPU otherwise. Calls are blocking and thread-safe: the server runs them in worker threads,
never on the event loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnxruntime as ort

from .config import Settings
from .model_files import ModelFiles
from .spoken import Phonemized

SAMPLE_RATE = 24_000
MAX_PHONEMES = 510  # the model's context is 512 tokens including the two pad tokens
MIN_SPEED, MAX_SPEED = 0.5, 2.0

log = logging.getLogger("kokoro.engine")


class UnknownVoiceError(ValueError):
    def __init__(self, voice: str, known: list[str]) -> None:
        super().__init__(f"unknown voice {voice!r}; available: {', '.join(known)}")
        self.voice = voice


def choose_providers(settings: Settings) -> list[str | tuple[str, dict[str, str]]]:
    """CUDA first when asked for (or on auto when present), always with the CPU fallback."""
    available = ort.get_available_providers()
    want_cuda = settings.provider in ("auto", "cuda") and "CUDAExecutionProvider" in available
    if settings.provider == "cuda" and not want_cuda:
        raise RuntimeError(f"KOKORO_PROVIDER=cuda but ONNX Runtime offers only {available}")
    if want_cuda:
        cuda_options = {"cudnn_conv_algo_search": settings.cudnn_conv_algo_search}
        return [("CUDAExecutionProvider", cuda_options), "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def split_phonemes(phonemes: str, limit: int = MAX_PHONEMES) -> list[str]:
    """Cut an over-long phoneme string at punctuation, then at spaces, then hard."""
    if len(phonemes) <= limit:
        return [phonemes]
    pieces: list[str] = []
    rest = phonemes
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind(p) for p in ".!?;:,—…")
        if cut < limit // 3:
            cut = window.rfind(" ")
        if cut < limit // 3:
            cut = limit - 1
        pieces.append(rest[: cut + 1].strip())
        rest = rest[cut + 1 :].lstrip()
    if rest:
        pieces.append(rest)
    return [p for p in pieces if p]


class KokoroEngine:
    """Loads the model once; `synthesize` is safe to call from several threads."""

    def __init__(
        self, settings: Settings, files: ModelFiles, phonemize: Callable[..., Phonemized]
    ) -> None:
        self.settings = settings
        self.files = files
        self.phonemize = phonemize
        self.vocab = files.vocab
        with np.load(files.voices) as npz:
            self.voices: dict[str, np.ndarray] = {k: np.asarray(npz[k]) for k in npz.files}
        if not self.voices:
            raise RuntimeError(f"voice file {files.voices} holds no voices")
        self.default_voice = settings.default_voice or next(iter(self.voices))
        if self.default_voice not in self.voices:
            raise UnknownVoiceError(self.default_voice, self.voice_names)

        options = ort.SessionOptions()
        if settings.intra_op_threads > 0:
            options.intra_op_num_threads = settings.intra_op_threads
        options.log_severity_level = settings.ort_log_level
        started = time.perf_counter()
        self.session = ort.InferenceSession(
            str(files.model), sess_options=options, providers=choose_providers(settings)
        )
        self.providers = self.session.get_providers()
        inputs = {i.name for i in self.session.get_inputs()}
        # kokoro-onnx exports call the token input "tokens", onnx-community's "input_ids".
        self._token_input = "tokens" if "tokens" in inputs else "input_ids"
        log.info(
            "model loaded",
            extra={
                "fields": {
                    "model": str(files.model),
                    "source": files.source,
                    "providers": self.providers,
                    "voices": len(self.voices),
                    "load_ms": round((time.perf_counter() - started) * 1000, 1),
                }
            },
        )

    @property
    def voice_names(self) -> list[str]:
        return sorted(self.voices)

    def check_voice(self, voice: str) -> None:
        if voice not in self.voices:
            raise UnknownVoiceError(voice, self.voice_names)
        # The text front end refuses a voice whose language it cannot speak, with the reason.
        check_language = getattr(self.phonemize, "check_voice", None)
        if check_language is not None:
            check_language(voice)

    def tokens(self, phonemes: str) -> list[int]:
        return [self.vocab[c] for c in phonemes if c in self.vocab]

    def synthesize(
        self, text: str, voice: str, speed: float = 1.0, **pronunciation: Any
    ) -> np.ndarray:
        """One sentence (or clause) of text -> float32 mono audio at 24 kHz.

        `pronunciation` (a session's `lexicon`) goes to the text front end as it is.
        """
        self.check_voice(voice)
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}")
        phonemes = self.phonemize(text, voice, **pronunciation).phonemes
        parts = [self._infer(p, voice, speed) for p in split_phonemes(phonemes)]
        parts = [p for p in parts if p.size]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def _infer(self, phonemes: str, voice: str, speed: float) -> np.ndarray:
        ids = self.tokens(phonemes)[:MAX_PHONEMES]
        if not ids:
            return np.zeros(0, np.float32)
        styles = self.voices[voice]
        # A voice pack holds one style vector per input length.
        style = styles[min(len(ids), len(styles)) - 1].reshape(1, -1).astype(np.float32)
        audio = self.session.run(
            None,
            {
                self._token_input: np.array([[0, *ids, 0]], dtype=np.int64),
                "style": style,
                "speed": np.array([speed], dtype=np.float32),
            },
        )[0]
        return np.asarray(audio, dtype=np.float32).reshape(-1)

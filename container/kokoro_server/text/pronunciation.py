"""Pronunciation control: lexicons (server-wide and per session) and inline markup.

- Inline markup, one occurrence: `{Kokoro|/kˈOkəɹO/}`. Not misaki's `[Kokoro](/kˈOkəɹO/)`:
  that is a markdown link, and language models write links; braces with a bar and slashes
  are something markdown never produces, so a link is always read as its text
  (text/markdown.py) and never reaches this parser.
- A lexicon maps words to phonemes: `{"Kokoro": "kˈOkəɹO"}`. A key written in lower case
  matches the word in any case; a key with capitals matches only that spelling. Keys may be
  several words ("New York"). The session's lexicon (`lexicon` in `start`) wins over the
  server's (`KOKORO_LEXICON`, a JSON file next to the weights).

Phonemes are checked against the model's vocabulary: a symbol the model does not know is a
clear error, never silently dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_ENTRIES = 1000
MAX_KEY_CHARS = 100
MAX_PHONEME_CHARS = 200


class PronunciationError(ValueError):
    """Bad markup or lexicon: reported as `bad_parameter`."""


@dataclass(frozen=True)
class Fixed:
    """A stretch of the sentence whose phonemes are given, not computed."""

    start: int
    end: int
    phonemes: str


def check_phonemes(phonemes: str, vocab: Mapping[str, int], where: str) -> str:
    if not phonemes.strip():
        raise PronunciationError(f"{where}: phonemes are empty")
    if len(phonemes) > MAX_PHONEME_CHARS:
        raise PronunciationError(f"{where}: phonemes longer than {MAX_PHONEME_CHARS} characters")
    unknown = sorted({c for c in phonemes if c not in vocab})
    if unknown:
        shown = " ".join(f"{c!r} (U+{ord(c):04X})" for c in unknown)
        raise PronunciationError(
            f"{where}: phoneme symbols the model does not know: {shown}; "
            "see the model's vocabulary (docs/container.md, Pronunciation)"
        )
    return phonemes


def _spaced(char: str) -> bool:
    """Letters of scripts that separate words with spaces (not kana or CJK ideographs)."""
    return char.isalnum() and ord(char) < 0x2E80


class Lexicon:
    """Words with the phonemes to say for them, matched as whole words."""

    def __init__(self, entries: Mapping[str, str], vocab: Mapping[str, int], source: str) -> None:
        if len(entries) > MAX_ENTRIES:
            raise PronunciationError(f"{source}: more than {MAX_ENTRIES} entries")
        self.entries: dict[str, str] = {}
        for word, phonemes in entries.items():
            if not isinstance(word, str) or not word.strip() or len(word) > MAX_KEY_CHARS:
                raise PronunciationError(
                    f"{source}: each word must be a non-empty string of at most "
                    f"{MAX_KEY_CHARS} characters, got {word!r}"
                )
            if not isinstance(phonemes, str):
                raise PronunciationError(f"{source}: phonemes for {word!r} must be a string")
            check_phonemes(phonemes, vocab, f"{source} entry {word!r}")
            self.entries[word.strip()] = phonemes.strip()
        self._pattern = self._compile()

    def _compile(self) -> re.Pattern[str] | None:
        if not self.entries:
            return None
        alternatives = []
        for word in sorted(self.entries, key=len, reverse=True):
            escaped = re.escape(word)
            if _spaced(word[0]):
                escaped = r"(?<!\w)" + escaped
            if _spaced(word[-1]):
                escaped += r"(?!\w)"
            flags = "(?i:" if word == word.lower() else "(?:"
            alternatives.append(flags + escaped + ")")
        return re.compile("|".join(alternatives))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def lookup(self, found: str) -> str:
        return self.entries.get(found) or self.entries[found.lower()]

    def merged(self, other: Lexicon | None) -> Lexicon:
        """This lexicon with `other`'s entries winning."""
        if not other:
            return self
        merged = object.__new__(Lexicon)
        merged.entries = {**self.entries, **other.entries}
        merged._pattern = merged._compile()
        return merged

    def find(self, text: str, start: int = 0, end: int | None = None) -> list[Fixed]:
        if self._pattern is None:
            return []
        return [
            Fixed(m.start(), m.end(), self.lookup(m[0]))
            for m in self._pattern.finditer(text, start, len(text) if end is None else end)
        ]


def load_lexicon_file(path: str, vocab: Mapping[str, int]) -> Lexicon:
    """KOKORO_LEXICON: a JSON object of word -> phonemes, checked at start-up."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PronunciationError(f"KOKORO_LEXICON {path}: cannot read it: {exc}") from exc
    if not isinstance(data, dict):
        raise PronunciationError(f"KOKORO_LEXICON {path}: must be a JSON object word -> phonemes")
    return Lexicon(data, vocab, f"KOKORO_LEXICON {path}")


# Inline markup `{word|/phonemes/}`: the word holds no brace, bar or line break; the
# phonemes no slash.
MARKUP = re.compile(r"\{(?P<word>[^{}|\n]*)\|/(?P<phonemes>[^/{}\n]*)/\}")
_OPENED = re.compile(r"\{[^{}|\n]*\|/")
# Punctuation right after an overridden word is kept and spoken with it (a pause).
_TRAILING = re.compile(r"[.,;:!?…—]+")


def _with_punctuation(text: str, fixed: Fixed) -> Fixed:
    tail = _TRAILING.match(text, fixed.end)
    if not tail:
        return fixed
    return Fixed(fixed.start, tail.end(), fixed.phonemes + tail[0])


def fixed_spans(text: str, vocab: Mapping[str, int], lexicon: Lexicon | None) -> list[Fixed]:
    """Every stretch of `text` with given phonemes: inline markup first, then lexicon words.

    Raises PronunciationError for markup that is malformed or names unknown symbols.
    """
    spans: list[Fixed] = []
    for m in MARKUP.finditer(text):
        word = m["word"]
        where = f"markup {{{word}|/{m['phonemes']}/}}"
        if not word.strip():
            raise PronunciationError(f"{where}: the word before the bar is empty")
        spans.append(Fixed(m.start(), m.end(), check_phonemes(m["phonemes"], vocab, where)))
    # Markup that opens `{word|/` but never closes with `/}` would be read out literally.
    remainder = MARKUP.sub(lambda m: " " * len(m[0]), text)
    opened = _OPENED.search(remainder)
    if opened:
        raise PronunciationError(
            f"malformed pronunciation markup at character {opened.start()}: "
            "write {word|/phonemes/}"
        )
    if lexicon:
        cursor = 0
        for span in [*spans, Fixed(len(text), len(text), "")]:
            spans.extend(lexicon.find(text, cursor, span.start))
            cursor = span.end
    spans = [_with_punctuation(text, s) for s in sorted(spans, key=lambda s: s.start)]
    return spans


def markup_word(text: str, fixed: Fixed) -> str:
    """The written word of a fixed span: the word of markup, else the text."""
    written = text[fixed.start : fixed.end]
    m = MARKUP.match(written)
    if m:
        return m["word"] + written[m.end() :]
    return written


def written(text: str) -> str:
    """The text as a reader sees it: each markup by its word (for captions)."""
    return MARKUP.sub(lambda m: m["word"], text)

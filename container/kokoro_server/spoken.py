"""What the G2P hands the engine: the sentence as written words, each with its phonemes.

The seam between text processing (language, normalization, lexicon, G2P) and the model
(tokens, durations, word timestamps). Keeping the written form next to the phonemes is what
lets word timestamps name `$29.99` rather than "twenty-nine dollars ...".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpokenWord:
    text: str  # the written form as it appears in the sentence: "$29.99", "Dr.", "今日"
    # Phonemes for it in the model's vocabulary, including any separator or punctuation the
    # word owns (a trailing space, a comma). May be empty for text that is not spoken.
    phonemes: str


@dataclass(frozen=True)
class Phonemized:
    words: tuple[SpokenWord, ...]
    language: str  # the G2P language used, e.g. "en-us", "ja"
    normalized: str = ""  # the text after normalization (what the G2P read)

    @property
    def phonemes(self) -> str:
        """The model input: the words' phonemes concatenated, in order."""
        return "".join(w.phonemes for w in self.words)

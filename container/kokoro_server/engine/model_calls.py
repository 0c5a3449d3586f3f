"""One sentence's words -> the model calls that speak it, each token tagged with its word.

The model takes at most 510 tokens per call. A longer sentence is cut between words (after
punctuation if possible, else at a space, and inside a word only when one word alone is over
the limit), so every token still knows which written word it belongs to and the durations of
several calls map back onto one sentence.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kokoro_server.spoken import SpokenWord

MAX_TOKENS = 510  # the model's context is 512 tokens including the two pad tokens
CLAUSE_ENDS = frozenset(".!?;:,—…")


@dataclass(frozen=True)
class Token:
    id: int
    char: str
    word: int  # index of its word in the sentence

    @property
    def sounding(self) -> bool:
        """Speech rather than a pause: spaces, punctuation and intonation arrows are not."""
        return unicodedata.category(self.char)[0] not in "PZS"


@dataclass(frozen=True)
class ModelCall:
    tokens: tuple[Token, ...]  # without the two pad tokens the model adds around them

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]


def tokenize(words: Sequence[SpokenWord], vocab: Mapping[str, int]) -> list[Token]:
    """Every phoneme the vocabulary knows, in order; the rest are dropped (as before)."""
    return [
        Token(vocab[char], char, index)
        for index, word in enumerate(words)
        for char in word.phonemes
        if char in vocab
    ]


def _cut_point(tokens: Sequence[Token], limit: int) -> int:
    """How many tokens of an over-long run go into this call (at most `limit`)."""
    for allowed in (
        lambda i: tokens[i].char in CLAUSE_ENDS and tokens[i + 1].char.isspace(),
        lambda i: tokens[i].char.isspace(),
        lambda i: tokens[i].word != tokens[i + 1].word,
    ):
        cut = max((i + 1 for i in range(limit) if allowed(i)), default=0)
        if cut > limit // 3:
            return cut
    return limit


def _strip(tokens: Sequence[Token]) -> tuple[Token, ...]:
    start, end = 0, len(tokens)
    while start < end and tokens[start].char.isspace():
        start += 1
    while end > start and tokens[end - 1].char.isspace():
        end -= 1
    return tuple(tokens[start:end])


def plan_calls(
    words: Sequence[SpokenWord], vocab: Mapping[str, int], limit: int = MAX_TOKENS
) -> list[ModelCall]:
    """The calls for one sentence, each at most `limit` tokens, spaces trimmed at the cuts."""
    rest = tokenize(words, vocab)
    calls: list[ModelCall] = []
    while rest:
        rest = list(_strip(rest))
        cut = len(rest) if len(rest) <= limit else _cut_point(rest, limit)
        tokens = _strip(rest[:cut])
        if tokens:
            calls.append(ModelCall(tokens))
        rest = rest[cut:]
    return calls

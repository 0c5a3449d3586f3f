"""The normalizer's engine, shared by every language: rules claim stretches of a sentence.

A rule is a regular expression for one kind of written form (a price, a time, a Roman
numeral after a name) and a function that says it, or declines (None) when the context says
the form is something else. Rules run in order over the whole sentence; the first to claim a
stretch wins it. The result keeps the written words next to what is said for them, so word
timestamps name `$29.99`, not "twenty-nine dollars and ninety-nine cents".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Written:
    text: str  # the written form: one or more whitespace-separated words of the sentence
    spoken: str  # what is said for it (equal to text when nothing needed saying differently)
    start: int = 0  # where the written form is in the sentence
    end: int = 0
    # The word's phonemes when its spelling alone is ambiguous (a heteronym's sense in this
    # sentence: "wound" the past of wind), in place of the G2P's own guess.
    phonemes: str | None = None


Say = Callable[[re.Match[str]], "str | None"]


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    say: Say


# A form starts where a word starts (after whitespace or opening punctuation) and ends where
# a word ends (before whitespace, closing punctuation, a hyphen joining a word, or the end).
START = r"(?<![^\s(\[{\"'“‘«/–—~√±≈=<>≤≥×#`-])"
END = r"(?=[.,;:!?)\]}\"'”’»…/–—`]*(?:\s|$)|-[A-Za-z]|[–—/²³^]|['’]s\b)"


def word_set(words: str) -> frozenset[str]:
    """The space-separated words as a set (tables of small words read better as one line)."""
    return frozenset(words.split())


def rule(name: str, pattern: str, say: Say, bounded: bool = True, flags: int = 0) -> Rule:
    if bounded:
        pattern = START + "(?:" + pattern + ")" + END
    return Rule(name, re.compile(pattern, flags), say)


@dataclass(frozen=True)
class Claim:
    start: int
    end: int
    spoken: str
    phonemes: str | None = None  # fixed phonemes for a whole word (heteronyms)


def claims(text: str, rules: Sequence[Rule], fixed: Sequence[Claim] = ()) -> list[Claim]:
    """Non-overlapping claims for every stretch a rule says differently, in order; `fixed`
    claims (heteronyms) hold where no rule claimed their word."""
    taken = [False] * len(text)
    found: list[Claim] = []
    for r in rules:
        for m in r.pattern.finditer(text):
            start, end = m.start(), m.end()
            if start == end or any(taken[start:end]):
                continue
            said = r.say(m)
            if said is None or said == m[0]:
                continue
            # A form that swallowed the sentence's final period gives it back.
            if m[0].endswith(".") and not text[end:].strip() and not said.endswith("."):
                said += "."
            found.append(Claim(start, end, said))
            for i in range(start, end):
                taken[i] = True
    found += [c for c in fixed if not any(taken[c.start : c.end])]
    return sorted(found, key=lambda c: c.start)


_SPACE_BEFORE = re.compile(r"\s+([.,;:!?)\]}”’»])")
_SPACE_AFTER = re.compile(r"([(\[{“‘«])\s+")


def tidy(spoken: str) -> str:
    spoken = re.sub(r"\s+", " ", spoken).strip()
    return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", spoken))


def group(text: str, found: Sequence[Claim]) -> list[Written]:
    """The sentence as written words (whitespace-separated, or a form spanning several),
    each with what is said for it."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    out: list[Written] = []
    i = 0
    k = 0
    while i < len(words):
        start, end = words[i]
        parts: list[str] = []
        cursor = start
        group_end = end
        phonemes: str | None = None
        while k < len(found) and found[k].start < group_end:
            claim = found[k]
            while claim.end > group_end and i + 1 < len(words):
                i += 1
                group_end = words[i][1]
            parts.append(text[cursor : claim.start])
            if claim.phonemes is not None:
                parts.append(claim.spoken)
                phonemes = claim.phonemes
            else:
                # Spaces keep a claim apart from a word or another claim next to it ("$15–$25"),
                # never from an apostrophe ("l'11" -> "l'undici").
                before = text[claim.start - 1] if claim.start > start else " "
                after = text[claim.end] if claim.end < group_end else " "
                lead = " " if before.isalnum() or before in "–—-/×" or not before.strip() else ""
                trail = " " if after.isalnum() or after in "–—-/×$€£¥₹" else ""
                parts.append(lead + claim.spoken + trail)
            cursor = claim.end
            k += 1
        parts.append(text[cursor:group_end])
        out.append(Written(text[start:group_end], tidy("".join(parts)), start, group_end, phonemes))
        i += 1
    return out


def spoken_text(words: Sequence[Written]) -> str:
    """The whole sentence as it is said (the `normalized` field of the phonemes format)."""
    return tidy(" ".join(w.spoken for w in words if w.spoken))

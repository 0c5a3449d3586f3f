"""English normalization (American and British): tables, verbalizers, rule families, heteronyms."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Claim, Written, claims, group
from kokoro_server.text.normalize.en.heteronyms import readings
from kokoro_server.text.normalize.en.rules import rules


def normalize(text: str, british: bool = False) -> list[Written]:
    """The sentence as written words, each with what is said for it (and, for a heteronym
    whose sense the sentence decides, its American English phonemes)."""
    fixed = [] if british else [Claim(s, e, text[s:e], p) for s, e, p in readings(text)]
    return group(text, claims(text, rules(british), fixed))

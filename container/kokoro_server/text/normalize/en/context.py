"""The words around a match: what the rules look at to tell a year from a count."""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w'’.#§&+-]+|[^\w\s]")


def before(m: re.Match[str], count: int = 3) -> list[str]:
    """The `count` tokens before the match, nearest last, lower-cased."""
    tokens = _WORD.findall(m.string[max(0, m.start() - 80) : m.start()])
    tokens = [t for t in tokens if t[0].isalnum() or t in ("(", "©", "#", "§", "'s")]
    return [t.lower() for t in tokens[-count:]]


def after(m: re.Match[str], count: int = 2) -> list[str]:
    tokens = _WORD.findall(m.string[m.end() : m.end() + 60])
    return [t.lower() for t in tokens[:count]]


# How far the words around a match are looked for. A search anchored at the end of the
# whole text before a match would cost time in proportion to its length, for every match:
# quadratic on a long sentence.
_NEAR = 80


def preceding(m: re.Match[str]) -> str:
    """The text just before the match (within `_NEAR` characters): what the rules' searches
    anchored at its end need, at a cost that does not grow with the sentence."""
    return m.string[max(0, m.start() - _NEAR) : m.start()]


def previous_word(m: re.Match[str]) -> str:
    found = re.search(r"([\w.'’#&]+)\W*$", m.string[max(0, m.start() - _NEAR) : m.start()])
    return found[1] if found else ""


def next_word(m: re.Match[str]) -> str:
    found = re.match(r"\W*?([\w.'’]+)", m.string[m.end() : m.end() + _NEAR])
    return found[1] if found else ""


def sentence_has(m: re.Match[str], pattern: str) -> bool:
    return re.search(pattern, m.string, re.IGNORECASE) is not None


def after_article(m: re.Match[str]) -> bool:
    """'a 2 TB drive', 'a $2B deal': after 'a'/'an' a unit is said in the singular."""
    near = m.string[max(0, m.start() - _NEAR) : m.start()]
    return bool(re.search(r"\ban?\s+$", near, re.IGNORECASE))

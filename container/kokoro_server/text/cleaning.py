"""The first step of the speech front end: characters nobody reads aloud, removed.

Runs before markdown, normalization and G2P, on every route:

- terminal escape sequences (ANSI CSI such as ``\\x1b[31m``, OSC titles and links, two-byte
  ESC sequences, the C1 form ``\\x9b``): removed whole, never spoken as "31m". ESC followed by
  "[" is read as a terminal reads it (ECMA-48), so a stray ESC right before a markdown link
  takes the link's bracket with it (``\\x1b[l`` is complete) and the rest is plain text;
- control characters (Unicode category Cc) other than tab and line breaks: removed; a tab
  becomes a space, a carriage return a line break;
- zero-width characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM, Mongolian vowel separator) and
  the soft hyphen: removed (they change how glyphs are drawn, not what is said; an emoji ZWJ
  sequence then reads as its parts);
- bidi controls (LRM, RLM, ALM, LRE..RLO, LRI..PDI): removed;
- a digit group space (thin, narrow no-break, figure or no-break space inside a grouped
  number: "10\u2009000", "1\u202f234\u202f567", SI and French style) becomes a comma in the
  languages whose normalizers read a space between digits as two numbers (English, Hindi):
  "10,000". Elsewhere it stays, and reads as the group space it is. A group is a space after
  one to three digits (not after a letter, a decimal point or a comma: "3.141 592" is a
  fraction, "v2 000" a name) or after an accepted group, followed by exactly three digits.

`StreamCleaner` does the same on deltas: an escape sequence split across deltas is held until
it completes, so the result never depends on where the deltas were cut. A sequence is only
recognized when it completes within `_MAX_SEQUENCE` characters; anything longer is not an
escape sequence, and its ESC is dropped as a control character. A digit group space is held
until the four characters after it are known (at most four characters).
"""

from __future__ import annotations

import re

_MAX_SEQUENCE = 64
# CSI: ESC [ (or C1 0x9b), parameter bytes, intermediate bytes, one final byte.
_CSI = r"(?:\x1b\[|\x9b)[0-?]{0,60}[ -/]{0,4}[@-~]"
# OSC (titles, hyperlinks): ESC ] ... terminated by BEL or ESC \.
_OSC = r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c]{0,60}(?:\x07|\x1b\\|\x9c)"
# Other two-character ESC sequences (ESC 7, ESC =, ESC ( B's first part...).
_ESC2 = r"\x1b[ -~]"
_SEQUENCE = re.compile(f"{_CSI}|{_OSC}|{_ESC2}")
_INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_CONTROL = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_INVISIBLE}]")
# A tail that may still become a complete escape sequence once more text arrives.
_OPEN_TAIL = re.compile(
    r"(?:\x1b|(?:\x1b\[|\x9b)[0-?]{0,60}[ -/]{0,4}|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]{0,60}\x1b?)\Z"
)


# The separator a digit group space becomes, by the voice's language; absent: kept.
GROUP_SEPARATORS = {"en-us": ",", "en-gb": ",", "hi": ","}
_GROUP_SPACES = "\u00a0\u2007\u2009\u202f"
_GROUP_CANDIDATE = re.compile(f"(?<=[0-9])[{_GROUP_SPACES}]")
_DIGITS = frozenset("0123456789")


def _strip(text: str) -> str:
    text = _SEQUENCE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _CONTROL.sub("", text)


def clean(text: str, language: str = "en-us") -> str:
    """The text without escape sequences, control, zero-width or bidi characters, its digit
    group spaces written as the language writes them."""
    return _DigitGroups().feed(_strip(text), language, final=True)


class _DigitGroups:
    """Digit group spaces on a stream of cleaned text. A space's verdict needs the four
    characters after it and the four before it (kept from what was already released), so
    the result does not depend on where the pieces were cut; each piece is scanned once."""

    def __init__(self) -> None:
        self._held = ""  # from an undecided group space on
        self._before = ""  # the last characters released, as they were written
        self._released = 0  # characters released so far
        self._last_group = -1  # where the last accepted group space was (in the whole text)

    @property
    def held_chars(self) -> int:
        return len(self._held)

    def feed(self, piece: str, language: str, *, final: bool) -> str:
        text = self._before + self._held + piece
        base = self._released - len(self._before)  # text[0]'s place in the whole text
        start = len(self._before)
        separator = GROUP_SEPARATORS.get(language)
        out: list[str] = []
        cursor, cut = start, len(text)
        for m in _GROUP_CANDIDATE.finditer(text, start):
            space = m.start()
            verdict = self._is_group(text, space, base, final)
            if verdict is None:
                cut = space
                break
            if verdict:
                self._last_group = base + space
                if separator:
                    out += (text[cursor:space], separator)
                    cursor = space + 1
        out.append(text[cursor:cut])
        self._held = text[cut:]
        self._released += cut - start
        self._before = text[max(0, cut - 4) : cut]
        return "".join(out)

    def _is_group(self, text: str, space: int, base: int, final: bool) -> bool | None:
        """Whether text[space] (after a digit) separates digit groups; None: not known yet."""
        after = text[space + 1 : space + 5]
        digits = 0
        while digits < len(after) and after[digits] in _DIGITS:
            digits += 1
        if digits == len(after) and len(after) < 4 and not final:
            return None  # the group may still be arriving
        if digits != 3:
            return False
        run = 1  # digits right before it: one to three, the first group or a later one
        while run < 4 and space - run - 1 >= 0 and text[space - run - 1] in _DIGITS:
            run += 1
        if run == 4:
            return False
        if space - run - 1 < 0:
            return True
        mark = text[space - run - 1]
        if mark in _GROUP_SPACES:
            return run == 3 and self._last_group == base + space - 4
        return not (mark.isalnum() or mark in ".,_")


class StreamCleaner:
    """`clean` over deltas: feeding pieces gives the same text as cleaning their join."""

    def __init__(self) -> None:
        self._held = ""  # the start of an escape sequence (or a "\r") still being decided
        self._groups = _DigitGroups()

    @property
    def buffered_chars(self) -> int:
        return len(self._held) + self._groups.held_chars

    def feed(self, delta: str, language: str = "en-us") -> str:
        text = self._held + delta
        self._held = ""
        cut = len(text)
        escape = text.rfind("\x1b", max(0, cut - _MAX_SEQUENCE))
        c1 = max(
            text.rfind("\x9b", max(0, cut - _MAX_SEQUENCE)),
            text.rfind("\x9d", max(0, cut - _MAX_SEQUENCE)),
        )
        start = max(escape, c1)
        if start >= 0 and _OPEN_TAIL.match(text, start) and cut - start < _MAX_SEQUENCE:
            cut = start
        if cut and text[cut - 1] == "\r":  # "\r\n" is one line break, "\r" alone another
            cut -= 1
        self._held = text[cut:]
        return self._groups.feed(_strip(text[:cut]), language, final=False)

    def flush(self, language: str = "en-us") -> str:
        """The held tail, cleaned as the end of the text."""
        text, self._held = self._held, ""
        out = self._groups.feed(_strip(text), language, final=True)
        self._groups = _DigitGroups()
        return out

    def reset(self) -> None:
        self._held = ""
        self._groups = _DigitGroups()

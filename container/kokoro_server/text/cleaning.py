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
- bidi controls (LRM, RLM, ALM, LRE..RLO, LRI..PDI): removed.

`StreamCleaner` does the same on deltas: an escape sequence split across deltas is held until
it completes, so the result never depends on where the deltas were cut. A sequence is only
recognized when it completes within `_MAX_SEQUENCE` characters; anything longer is not an
escape sequence, and its ESC is dropped as a control character.
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


def clean(text: str) -> str:
    """The text without escape sequences, control, zero-width or bidi characters."""
    text = _SEQUENCE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _CONTROL.sub("", text)


class StreamCleaner:
    """`clean` over deltas: feeding pieces gives the same text as cleaning their join."""

    def __init__(self) -> None:
        self._held = ""  # the start of an escape sequence (or a "\r") still being decided

    @property
    def buffered_chars(self) -> int:
        return len(self._held)

    def feed(self, delta: str) -> str:
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
        return clean(text[:cut])

    def flush(self) -> str:
        """The held tail, cleaned as the end of the text."""
        text, self._held = self._held, ""
        return clean(text)

    def reset(self) -> None:
        self._held = ""

"""Incremental cleanup of LLM text before TTS: markdown, list markers and emoji out.

The system prompt already asks for plain speakable text; this pass strips what slips
through. It works on deltas of any size: a marker split across deltas (`*` then `*bold`,
`-` at a line start, `](` of a link) is held back only until it can be decided, so the
output never depends on where the deltas were split.
"""

from __future__ import annotations

import re

# Markers that start a markdown line: heading, bullet, quote, numbered item.
_LINE_MARKER = re.compile(r"[ \t]*(?:#{1,6}|[-*+•>]|\d{1,3}[.)])[ \t]")
_LINE_MARKER_PREFIX = re.compile(r"[ \t]*(?:#{1,6}|[-*+•>]|\d{1,3}[.)]?)?")
_DROP = frozenset("*`~[")


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF  # pictographs, emoticons, transport, flags
        or 0x2600 <= cp <= 0x27BF  # misc symbols, dingbats
        or 0x2B00 <= cp <= 0x2BFF  # arrows and stars used as emoji
        or cp in (0xFE0F, 0xFE0E, 0x200D, 0x20E3)  # variation selectors, ZWJ, keycap
    )


class SpeakableFilter:
    """feed() deltas, then finish(); the concatenated output is the cleaned text."""

    def __init__(self) -> None:
        self._line_start = True
        self._prefix = ""  # undecided text at a line start
        self._after_bracket = False  # saw `]`: a `(` next means a link target to skip
        self._in_link_target = False
        self._link_depth = 0  # parentheses inside a link target, e.g. wiki URLs

    def feed(self, delta: str) -> str:
        out: list[str] = []
        for ch in delta:
            self._char(ch, out)
        return "".join(out)

    def finish(self) -> str:
        out: list[str] = []
        if self._line_start and self._prefix:
            prefix, self._prefix = self._prefix, ""
            self._line_start = False
            for ch in prefix:
                self._inline(ch, out)
        self._after_bracket = False
        self._in_link_target = False
        self._link_depth = 0
        return "".join(out)

    def _char(self, ch: str, out: list[str]) -> None:
        if self._in_link_target:
            if ch == "(":
                self._link_depth += 1
            elif ch == ")":
                if self._link_depth == 0:
                    self._in_link_target = False
                self._link_depth = max(0, self._link_depth - 1)
                return
            if ch != "\n":
                return
            self._in_link_target = False
            self._link_depth = 0
        if self._after_bracket:
            self._after_bracket = False
            if ch == "(":
                self._in_link_target = True
                return
        if self._line_start:
            self._line_char(ch, out)
        else:
            self._inline(ch, out)

    def _line_char(self, ch: str, out: list[str]) -> None:
        if ch == "\n":
            self._prefix = ""
            out.append("\n")
            return
        self._prefix += ch
        if _LINE_MARKER.fullmatch(self._prefix):
            self._prefix = ""
            self._line_start = False
            return
        if _LINE_MARKER_PREFIX.fullmatch(self._prefix):
            return  # could still become a marker
        prefix, self._prefix = self._prefix.lstrip(" \t"), ""
        self._line_start = False
        for c in prefix:
            self._inline(c, out)

    def _inline(self, ch: str, out: list[str]) -> None:
        if ch == "\n":
            out.append("\n")
            self._line_start = True
            self._prefix = ""
        elif ch == "]":
            self._after_bracket = True
        elif ch in _DROP or _is_emoji(ch):
            return
        elif ch in "_|":
            out.append(" ")
        else:
            out.append(ch)


def speakable(text: str) -> str:
    """Clean a whole text at once (same result as feeding it in any pieces)."""
    f = SpeakableFilter()
    return f.feed(text) + f.finish()

"""TEMPORARY minimal segmenter (replaced by the full one from the segmenter branch)."""

from __future__ import annotations

import re

_END = re.compile(r"[.!?。！？]+[\"')\]]*(?=\s+\S)|[。！？]")


class SentenceSegmenter:
    def __init__(
        self, *, first_clause: bool = True, first_clause_min_chars: int = 20, max_chars: int = 250
    ) -> None:
        self._buf = ""

    def feed(self, delta: str) -> list[str]:
        self._buf += delta
        out = []
        while m := _END.search(self._buf):
            piece, self._buf = self._buf[: m.end()].strip(), self._buf[m.end() :]
            if piece:
                out.append(piece)
        return out

    def flush(self) -> list[str]:
        piece, self._buf = self._buf.strip(), ""
        return [piece] if piece else []

    def reset(self) -> None:
        self._buf = ""

    @property
    def buffered_chars(self) -> int:
        return len(self._buf)

"""A one-line download progress bar on stderr (a line per 10 % when not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class ProgressBar:
    def __init__(self, name: str, total: int, done: int = 0, out: TextIO | None = None) -> None:
        self.name = name
        self.total = max(total, 1)
        self.done = done
        self._start_done = done
        self._out = out or sys.stderr
        self._tty = self._out.isatty()
        self._started = time.monotonic()
        self._shown_tenth = -1
        self._last_draw = 0.0

    def update(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        tenth = self.done * 10 // self.total
        if self._tty and now - self._last_draw >= 0.1:
            self._last_draw = now
            self._out.write("\r" + self.line())
            self._out.flush()
        elif not self._tty and tenth != self._shown_tenth:
            self._shown_tenth = tenth
            self._out.write(self.line() + "\n")

    def finish(self, status: str) -> None:
        end = "\r" if self._tty else ""
        self._out.write(f"{end}{self.line()}  {status}\n")
        self._out.flush()

    def line(self) -> str:
        fraction = min(self.done / self.total, 1.0)
        filled = int(fraction * WIDTH)
        elapsed = max(time.monotonic() - self._started, 1e-6)
        rate = (self.done - self._start_done) / elapsed / 1e6
        return (
            f"{self.name:<20} [{'#' * filled}{'.' * (WIDTH - filled)}] {fraction * 100:5.1f}% "
            f"{self.done / 1e6:8.1f}/{self.total / 1e6:.1f} MB {rate:6.1f} MB/s"
        )

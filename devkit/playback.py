"""A real-time player, simulated: where a caller's playback of an answer stands.

The player starts with the answer's first audio, plays without a pause while it has audio,
and waits when it runs out (an underrun) until more arrives. `played_ms()` is its position on
the answer's clock, the same clock the agent's `sentence.offset_ms` and `words` use and the
one `interrupt.played_ms` is counted on. Audio is counted in PCM samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def pcm_ms(data: bytes, sample_rate: int) -> float:
    """Milliseconds of 16-bit mono PCM."""
    return 1000.0 * len(data) / (2 * sample_rate)


class PlaybackClock:
    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self.received_ms = 0.0
        self._drains_at: float | None = None  # when the buffered audio runs out

    def feed(self, ms: float) -> None:
        """`ms` of audio arrived now."""
        now = self._now()
        start = now if self._drains_at is None else max(self._drains_at, now)
        self._drains_at = start + ms / 1000.0
        self.received_ms += ms

    def played_ms(self) -> float:
        if self._drains_at is None:
            return 0.0
        buffered = max(0.0, self._drains_at - self._now()) * 1000.0
        return self.received_ms - buffered

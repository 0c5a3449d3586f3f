"""Overload detection for admission control: real-time demand against measured capacity.

Every speaking session needs one second of audio per second of playback. The synthesis
service sustains `audio seconds produced / model seconds spent` times its workers in such
streams, measured over the sentences it recently served (not the warm-up, whose first-run
costs say little; exact for one worker; with several workers on one CPU the jobs slow each
other down, which their model time shows, so the product stays close while they are busy
together). A new session is refused while the speaking sessions plus it would
need more than `max_load` times that capacity. Pure: the service feeds it, app.py asks it.

The same window also estimates one job's model time from its text length (`cost_s`, for
pre-emption, scheduler.py): a least-squares line over the recent jobs' (characters, model
seconds), which covers a fixed cost per call (the tone double: all of it) and a cost per
character (the model: most of it).
"""

from __future__ import annotations

from collections import deque
from typing import Protocol


class Admitted(Protocol):
    """What admission control asks of a call it admitted (a session or a one-shot request)."""

    @property
    def demanding(self) -> bool: ...  # speaking or about to: it needs synthesis now

    @property
    def starting(self) -> bool: ...  # demanding, and no audio of it sent yet


class CapacityMeter:
    def __init__(self, workers: int, window: int = 32) -> None:
        self.workers = max(1, workers)
        self._jobs: deque[tuple[float, float, int]] = deque(maxlen=window)

    def record(self, audio_s: float, synth_s: float, chars: int = 0) -> None:
        if audio_s > 0 and synth_s > 0:
            self._jobs.append((audio_s, synth_s, chars))

    def streams(self) -> float | None:
        """Real-time streams the service sustains; None before its first job."""
        if not self._jobs:
            return None
        audio = sum(a for a, _, _ in self._jobs)
        model = sum(s for _, s, _ in self._jobs)
        return self.workers * audio / model

    def cost_s(self, chars: int) -> float | None:
        """Expected model seconds for a job of `chars` characters; None before its first job."""
        if not self._jobs:
            return None
        xs = [float(c) for _, _, c in self._jobs]
        ys = [s for _, s, _ in self._jobs]
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        spread = sum((x - mean_x) ** 2 for x in xs)
        trend = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
        if spread == 0 or trend <= 0:  # one length seen, or no trend: the mean job
            return mean_y
        return max(0.0, mean_y + trend / spread * (chars - mean_x))


def over_capacity(speaking: int, streams: float | None, max_load: float) -> bool:
    """Whether one more speaking session would exceed `max_load` x capacity.

    Never refuses the first speaking session (however slow the machine) or before anything
    was measured; `max_load` 0 turns the check off (admission by session count only).
    """
    if max_load <= 0 or streams is None or speaking == 0:
        return False
    return speaking + 1 > max_load * streams

"""Overload detection for admission control: real-time demand against measured capacity.

Every speaking session needs one second of audio per second of playback. The synthesis
service sustains `audio seconds produced / model seconds spent` times its workers in such
streams, measured over the sentences it recently served (not the warm-up, whose first-run
costs say little; exact for one worker; with several workers on one CPU the jobs slow each
other down, which their model time shows, so the product stays close while they are busy
together). A new session is refused while the speaking sessions plus it would
need more than `max_load` times that capacity. Pure: the service feeds it, app.py asks it.
"""

from __future__ import annotations

from collections import deque


class CapacityMeter:
    def __init__(self, workers: int, window: int = 32) -> None:
        self.workers = max(1, workers)
        self._jobs: deque[tuple[float, float]] = deque(maxlen=window)

    def record(self, audio_s: float, synth_s: float) -> None:
        if audio_s > 0 and synth_s > 0:
            self._jobs.append((audio_s, synth_s))

    def streams(self) -> float | None:
        """Real-time streams the service sustains; None before its first job."""
        if not self._jobs:
            return None
        audio = sum(a for a, _ in self._jobs)
        model = sum(s for _, s in self._jobs)
        return self.workers * audio / model


def over_capacity(speaking: int, streams: float | None, max_load: float) -> bool:
    """Whether one more speaking session would exceed `max_load` x capacity.

    Never refuses the first speaking session (however slow the machine) or before anything
    was measured; `max_load` 0 turns the check off (admission by session count only).
    """
    if max_load <= 0 or streams is None or speaking == 0:
        return False
    return speaking + 1 > max_load * streams

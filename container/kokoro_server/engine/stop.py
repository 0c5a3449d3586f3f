"""Stopping one synthesis job's model calls from another thread (barge-in, hang-up).

ONNX Runtime checks a `RunOptions`' `terminate` flag while it runs a graph: set from another
thread, the running `session.run` raises within milliseconds and the session stays usable
for the next call (docs/performance.md has the measured times). Each synthesis job carries
one `StopSignal`; every model call of the job runs with a `RunOptions` of its own taken from
it, so `stop()` ends the call in progress and refuses the ones that have not started.
"""

from __future__ import annotations

import threading

import onnxruntime as ort


class Stopped(Exception):
    """The job was stopped (its session cancelled or went away) before its audio was done."""


class StopSignal:
    """Thread-safe: `stop()` comes from the event loop, the model calls run in workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._running: list[ort.RunOptions] = []

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def stop(self) -> None:
        with self._lock:
            self._stopped.set()
            for options in self._running:
                options.terminate = True

    def check(self) -> None:
        """Raise Stopped if the job was stopped (between its steps)."""
        if self._stopped.is_set():
            raise Stopped("synthesis stopped")

    def begin(self) -> ort.RunOptions:
        """RunOptions for one model call; Stopped if the job was stopped already."""
        with self._lock:
            self.check()
            options = ort.RunOptions()
            self._running.append(options)
            return options

    def end(self, options: ort.RunOptions) -> None:
        with self._lock:
            self._running.remove(options)

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once when stopped (for engines without a graph,
        such as the tone test double); True when stopped."""
        return self._stopped.wait(seconds)

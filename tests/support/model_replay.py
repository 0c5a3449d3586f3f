"""Answer a repeated model call from memory, for the tests that opt in (`replayable`).

Half of the suite's real-model time was calls made again: the same tokens, voice and speed
synthesized by another test earlier in the same worker (docs/architecture.md, "Where the
model time goes"). Kokoro-82M on ONNX Runtime's CPU provider is deterministic (the same
inputs give bit-identical outputs; tests/container/test_model_replay.py checks it on the real
model), so the memory gives exactly the arrays the model would compute again.

Only where a test is marked `replayable` (its assertions are about what is said, not how long
saying it takes): the cancel, pre-emption, barge-in and admission tests need model calls that
take real time, so they always run the model. Every call, replayed or not, is still a real
session call the first time its inputs are seen in a process, so the real model answers each
distinct input at least once per worker.

While replay is on, the service's capacity meter is a copy that is dropped afterwards: the
meter learns the model's real-time factor from measured synthesis times (admission and
pre-emption use it), and instant replays would teach it a model that does not exist.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from kokoro_server.serving.synthesis import SynthesisService

# About 0.3 MB per remembered call (a sentence's audio as float32); a worker made about 150
# model calls in a whole run (docs/architecture.md), so the cap only guards.
MAX_REMEMBERED = 1024


def call_key(output_names: Sequence[str], feeds: Mapping[str, np.ndarray]) -> bytes:
    """Identifies one model call by everything ONNX Runtime is given."""
    digest = hashlib.sha256()
    for name in output_names:
        digest.update(name.encode() + b"\0")
    for name in sorted(feeds):
        array = np.ascontiguousarray(feeds[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.digest()


class ReplayingSession:
    """Stands in for an `ort.InferenceSession`: every call runs the real session and is
    remembered; while `replaying`, a call whose inputs were seen before is answered with
    copies of the remembered outputs instead."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.Lock()
        self._memory: OrderedDict[bytes, list[np.ndarray]] = OrderedDict()
        self.replaying = False
        self.replayed = 0  # calls answered from memory (for the tests of this module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def run(
        self,
        output_names: Sequence[str],
        input_feed: Mapping[str, np.ndarray],
        run_options: Any = None,
    ) -> list[np.ndarray]:
        key = call_key(output_names, input_feed)
        with self._lock:
            remembered = self._memory.get(key) if self.replaying else None
            if remembered is not None:
                self._memory.move_to_end(key)
                self.replayed += 1
                return [array.copy() for array in remembered]
        outputs = self._session.run(output_names, input_feed, run_options)
        with self._lock:
            self._memory[key] = [np.array(output, copy=True) for output in outputs]
            while len(self._memory) > MAX_REMEMBERED:
                self._memory.popitem(last=False)
        return list(outputs)


def install(service: SynthesisService) -> ReplayingSession:
    """Put a replaying session in front of the loaded service's model (replay off)."""
    assert service.engine is not None, "install after the service has loaded"
    replaying = ReplayingSession(service.engine.session)
    service.engine.session = replaying
    return replaying


@contextmanager
def replay(service: SynthesisService) -> Iterator[None]:
    """Replay on for the block, with a capacity meter of its own that is dropped after."""
    session = service.engine.session if service.engine is not None else None
    assert isinstance(session, ReplayingSession), "install() the replaying session first"
    meter = service.capacity
    service.capacity = copy.deepcopy(meter)
    session.replaying = True
    try:
        yield
    finally:
        session.replaying = False
        service.capacity = meter

"""The garbage collector of a pytest process, set for a test run.

A worker's heap grows to 500,000-800,000 objects (imported modules, collected tests, botocore
models, moto backends), and CPython's default collector walks all of them in every full
collection: 9-20 of those per fast-loop worker took 5-9 s of its 35 s of CPU, and the last
one, at interpreter exit, kept each worker alive 5-8 s after its last test. What was alive
when collection finished lives as long as the run, so it is frozen out of the collector, and
young collections run every 20,000 allocations instead of 700 (so full ones come less often
too); what the tests allocate is collected as before, only in larger batches. Measured in
docs/architecture.md ("The fast loop").
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def freeze_what_is_alive() -> None:
    """Collect, then keep every object still alive out of later collections (`gc.freeze`).
    A cycle among them that dies later stays in memory until the process exits."""
    gc.collect()
    gc.freeze()


def settle_after_collection() -> None:
    freeze_what_is_alive()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def exit_without_a_last_collection() -> None:
    """The run is over: nothing it left needs collecting before the process ends."""
    gc.freeze()

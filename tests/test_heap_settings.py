"""The test process's garbage collector (tests/support/heap.py): what collection imported is
frozen, what tests allocate is still collected, and the ping sampler keeps the freeze."""

from __future__ import annotations

import gc
import weakref

from tests.support import heap
from tests.support.load import PingSampler


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def unreachable_cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_collection_froze_the_imported_modules_and_raised_the_young_threshold() -> None:
    # This process went through tests/conftest.py's pytest_collection_finish.
    assert gc.get_freeze_count() > 10_000
    # A function imported while collecting is out of the collector's generations.
    assert not any(obj is heap.freeze_what_is_alive for obj in gc.get_objects())
    assert gc.get_threshold()[0] == heap.YOUNG_THRESHOLD


def test_a_cycle_a_test_drops_is_still_collected() -> None:
    ref = unreachable_cycle()
    assert ref() is not None  # a cycle: reference counting alone does not free it
    gc.collect()
    assert ref() is None


def test_the_ping_sampler_leaves_the_freeze_in_place() -> None:
    frozen = gc.get_freeze_count()
    # Nothing listens on port 9 of loopback: the sampler records failures, which is fine here.
    with PingSampler("http://127.0.0.1:9", interval=0.01):
        pass
    assert gc.get_freeze_count() >= frozen

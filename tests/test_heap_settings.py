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


def is_frozen(obj: object) -> bool:
    """Out of the collector's generations: `gc.freeze` moved it to the permanent one."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_collection_froze_the_imported_modules_and_raised_the_young_threshold() -> None:
    # This process went through tests/conftest.py's pytest_collection_finish.
    assert gc.get_freeze_count() > 10_000
    assert is_frozen(heap.freeze_what_is_alive)  # a function imported while collecting
    assert gc.get_threshold()[0] == heap.YOUNG_THRESHOLD


def test_a_cycle_a_test_drops_is_still_collected() -> None:
    ref = unreachable_cycle()
    assert not is_frozen(ref())
    assert ref() is not None  # a cycle: reference counting alone does not free it
    gc.collect()
    assert ref() is None


def test_the_ping_sampler_leaves_the_freeze_in_place() -> None:
    # Nothing listens on port 9 of loopback: the sampler records failures, which is fine here.
    with PingSampler("http://127.0.0.1:9", interval=0.01):
        pass
    assert is_frozen(heap.freeze_what_is_alive)

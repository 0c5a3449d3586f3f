"""The scheduler's order on hand-built queues, and properties under random interleavings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kokoro_server.serving.scheduler import PlaybackClock, Scheduler
from tests.support.scale import examples  # CI's KOKORO_TEST_SCALE=3: the former counts


def drain(queue: Scheduler[str]) -> list[str]:
    taken = []
    while (item := queue.pop()) is not None:
        taken.append(item)
    return taken


def test_earliest_deadline_first_across_sessions() -> None:
    queue: Scheduler[str] = Scheduler()
    queue.push("a", 5.0, "a1")
    queue.push("b", 1.0, "b0")
    queue.push("c", 3.0, "c0")
    assert drain(queue) == ["b0", "c0", "a1"]


def test_equal_deadlines_leave_by_arrival() -> None:
    queue: Scheduler[str] = Scheduler()
    for owner in ("c", "a", "b"):
        queue.push(owner, 2.0, owner)
    assert drain(queue) == ["c", "a", "b"]


def test_fifo_policy_ignores_deadlines() -> None:
    queue: Scheduler[str] = Scheduler("fifo")
    queue.push("a", 5.0, "a1")
    queue.push("b", 1.0, "b0")
    queue.push("a", 0.0, "a2")
    assert drain(queue) == ["a1", "b0", "a2"]


def test_a_session_keeps_its_order_even_against_its_own_deadlines() -> None:
    # a2 is due before a1, but a1 must be spoken first: a1 competes with a2's deadline.
    queue: Scheduler[str] = Scheduler()
    queue.push("a", 9.0, "a1")
    queue.push("b", 4.0, "b0")
    queue.push("a", 2.0, "a2")
    assert drain(queue) == ["a1", "a2", "b0"]


def test_cancel_removes_only_that_sessions_queued_work_at_once() -> None:
    queue: Scheduler[str] = Scheduler()
    queue.push("a", 1.0, "a0")
    queue.push("b", 2.0, "b0")
    queue.push("a", 3.0, "a1")
    assert queue.cancel("a") == ["a0", "a1"]
    assert len(queue) == 1
    assert queue.cancel("a") == []
    assert drain(queue) == ["b0"]


def test_discard_removes_one_job_and_is_idempotent() -> None:
    queue: Scheduler[str] = Scheduler()
    first = queue.push("a", 1.0, "a0")
    queue.push("a", 2.0, "a1")
    assert queue.discard(first) == "a0"
    assert queue.discard(first) is None
    assert drain(queue) == ["a1"]


def test_starvation_guard_bounds_how_often_later_work_passes() -> None:
    queue: Scheduler[str] = Scheduler(max_overtakes=3)
    queue.push("slow", 100.0, "far")  # due much later than anything that follows
    taken = []
    for n in range(6):
        queue.push(f"s{n}", float(n), f"near{n}")
        taken.append(queue.pop())
    assert taken == ["near0", "near1", "near2", "far", "near3", "near4"]
    assert queue.taken_by_guard == 1


def test_starvation_guard_of_zero_is_fifo() -> None:
    queue: Scheduler[str] = Scheduler(max_overtakes=0)
    queue.push("a", 9.0, "a")
    queue.push("b", 1.0, "b")
    assert drain(queue) == ["a", "b"]


@pytest.mark.parametrize(
    ("policy", "max_overtakes"), [("lifo", 3), ("deadline", -1), ("", 3), ("FIFO", 3)]
)
def test_bad_settings_are_refused(policy: str, max_overtakes: int) -> None:
    with pytest.raises(ValueError, match=r"policy|max_overtakes"):
        Scheduler(policy, max_overtakes)


def test_playback_clock_due_when_the_audio_before_runs_out() -> None:
    clock = PlaybackClock()
    assert clock.deadline(10.0) == 10.0  # nothing playing: due now
    clock.queued(10.0, 3.0)  # first audio handed over at 10 s plays until 13 s
    clock.queued(11.0, 2.0)  # queued behind it: plays 13..15
    assert clock.deadline(12.0) == 15.0
    assert clock.deadline(16.0) == 16.0  # ran dry (a stall or a pause): due now
    clock.queued(16.0, 1.0)  # after a gap, playback restarts from the new audio
    assert clock.deadline(16.5) == 17.0
    clock.reset()  # barge-in
    assert clock.deadline(16.5) == 16.5


# ---- properties -------------------------------------------------------------------------

OWNERS = st.sampled_from("abcd")
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("push"), OWNERS, st.floats(0, 100, allow_nan=False)),
        st.tuples(st.just("pop")),
        st.tuples(st.just("cancel"), OWNERS),
        st.tuples(st.just("discard"), st.integers(0, 60)),
    ),
    max_size=60,
)


def run_ops(queue: Scheduler[tuple[str, int]], ops: list[tuple]) -> dict[str, list]:
    pushed: list[tuple[str, int]] = []
    taken: list[tuple[str, int]] = []
    removed: list[tuple[str, int]] = []
    for op in ops:
        if op[0] == "push":
            item = (op[1], len(pushed))
            queue.push(op[1], op[2], item)
            pushed.append(item)
        elif op[0] == "pop":
            item = queue.pop()
            if item is not None:
                taken.append(item)
        elif op[0] == "cancel":
            removed += queue.cancel(op[1])
        elif (item := queue.discard(op[1])) is not None:
            removed.append(item)
    rest = []
    while (item := queue.pop()) is not None:
        rest.append(item)
    return {"pushed": pushed, "taken": taken + rest, "removed": removed}


@settings(max_examples=examples(100), deadline=None)
@given(ops=OPS, policy=st.sampled_from(["deadline", "fifo"]), bound=st.integers(0, 5))
def test_nothing_lost_duplicated_or_reordered_within_a_session(
    ops: list[tuple], policy: str, bound: int
) -> None:
    out = run_ops(Scheduler(policy, bound), ops)
    every = out["taken"] + out["removed"]
    assert sorted(every) == sorted(out["pushed"])  # each job exactly once
    for owner in "abcd":
        arrivals = [n for o, n in out["taken"] if o == owner]
        assert arrivals == sorted(arrivals)  # a session's jobs leave in its order


@settings(max_examples=examples(100), deadline=None)
@given(ops=OPS, bound=st.integers(0, 5))
def test_no_job_is_passed_by_more_later_arrivals_than_the_bound(
    ops: list[tuple], bound: int
) -> None:
    out = run_ops(Scheduler("deadline", bound), ops)
    taken_arrivals = [n for _, n in out["taken"]]
    for position, arrival in enumerate(taken_arrivals):
        passed_by = sum(1 for earlier in taken_arrivals[:position] if earlier > arrival)
        assert passed_by <= bound


@settings(max_examples=examples(67), deadline=None)
@given(ops=OPS)
def test_fifo_takes_jobs_in_arrival_order(ops: list[tuple]) -> None:
    out = run_ops(Scheduler("fifo"), ops)
    arrivals = [n for _, n in out["taken"]]
    assert arrivals == sorted(arrivals)

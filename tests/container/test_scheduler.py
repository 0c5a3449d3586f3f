"""The scheduler's order on hand-built queues, and properties under random interleavings."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kokoro_server.serving.scheduler import PlaybackClock, Running, Scheduler
from tests.support.scale import examples  # CI's KOKORO_TEST_SCALE=3: the former counts


def drain(queue: Scheduler[str]) -> list[str]:
    taken = []
    while (item := queue.pop()) is not None:
        taken.append(item)
    return taken


# Each case: the scheduler's settings, its pushes in arrival order as item -> deadline (an
# item's first letter is its session), and the order drain() takes them in.
@pytest.mark.parametrize(
    ("config", "pushes", "order"),
    [
        pytest.param(
            {}, {"a1": 5.0, "b0": 1.0, "c0": 3.0}, ["b0", "c0", "a1"], id="earliest-deadline-first"
        ),
        pytest.param(
            {}, dict.fromkeys("cab", 2.0), ["c", "a", "b"], id="equal-deadlines-by-arrival"
        ),
        pytest.param(
            {"policy": "fifo"},
            {"a1": 5.0, "b0": 1.0, "a2": 0.0},
            ["a1", "b0", "a2"],
            id="fifo-ignores-deadlines",
        ),
        # a2 is due before a1, but a1 must be spoken first: a1 competes with a2's deadline.
        pytest.param(
            {},
            {"a1": 9.0, "b0": 4.0, "a2": 2.0},
            ["a1", "a2", "b0"],
            id="a-session-keeps-its-order-even-against-its-own-deadlines",
        ),
        pytest.param(
            {"max_overtakes": 0},
            {"a": 9.0, "b": 1.0},
            ["a", "b"],
            id="starvation-guard-of-zero-is-fifo",
        ),
    ],
)
def test_the_order_jobs_leave_in(
    config: dict[str, Any], pushes: dict[str, float], order: list[str]
) -> None:
    queue: Scheduler[str] = Scheduler(**config)
    for item, deadline in pushes.items():
        queue.push(item[0], deadline, item)
    assert drain(queue) == order


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


# ---- pre-emption ------------------------------------------------------------------------


def test_requeue_puts_a_preempted_job_back_ahead_of_its_owners_later_jobs() -> None:
    queue: Scheduler[str] = Scheduler(max_preemptions=1)
    first = queue.push("a", 5.0, "a0")
    assert queue.pop() == "a0"  # in the worker
    queue.push("a", 6.0, "a1")  # its owner's next sentence, queued meanwhile
    queue.push("b", 1.0, "b0")
    queue.requeue(first, "a", 5.0, "a0")  # stopped for b0
    assert drain(queue) == ["b0", "a0", "a1"]


def test_a_requeued_job_keeps_its_ticket_and_its_fifo_place() -> None:
    queue: Scheduler[str] = Scheduler("fifo")
    first = queue.push("a", 5.0, "a0")
    assert queue.pop() == "a0"
    queue.push("b", 1.0, "b0")
    queue.requeue(first, "a", 5.0, "a0")
    assert queue.discard(first) == "a0"  # the same ticket discards it
    queue.requeue(first, "a", 5.0, "a0")
    assert drain(queue) == ["a0", "b0"]  # the oldest arrival first, as before


def test_requeue_refuses_a_ticket_still_queued_or_never_issued() -> None:
    queue: Scheduler[str] = Scheduler()
    ticket = queue.push("a", 1.0, "a0")
    with pytest.raises(ValueError, match="queued already"):
        queue.requeue(ticket, "a", 1.0, "a0")
    with pytest.raises(ValueError, match="never issued"):
        queue.requeue(7, "a", 1.0, "a7")
    assert drain(queue) == ["a0"]


def preempting() -> Scheduler[str]:
    queue: Scheduler[str] = Scheduler(max_preemptions=1, preempt_slack_s=0.25)
    queue.push("new", 10.0, "new0", 0.2)  # a newcomer's first sentence: due now (t=10)
    return queue


# A sentence in the worker since t=9.9, 1 s of model time in all, due at t=13 (its listener
# has 3 s of audio in hand): it cannot finish before t=10.9, and a rerun after the newcomer
# ends by 10 + 0.2 + 1 + 0.25 slack = 11.45 < 13.
LONG_AHEAD = Running(deadline=13.0, cost_s=1.0, started=9.9, preemptions=0)


def test_a_job_due_now_preempts_one_whose_listener_has_audio_in_hand() -> None:
    assert preempting().victim([LONG_AHEAD], now=10.0) == 0


@pytest.mark.parametrize(
    ("running", "why"),
    [
        (Running(11.3, 1.0, 9.9, 0), "its listener would run dry: 10 + 0.2 + 1 + 0.25 > 11.3"),
        (Running(13.0, 1.0, 9.9, 1), "pre-empted once already: the bound"),
        (Running(13.0, 1.0, 8.9, 0), "it is due to finish now: waiting costs nothing"),
        (Running(13.0, math.inf, 9.9, 0), "its cost is unknown (nothing measured yet)"),
    ],
)
def test_no_preemption_when_it_cannot_pay(running: Running, why: str) -> None:
    assert preempting().victim([running], now=10.0) is None, why


def test_queued_work_due_before_the_running_job_counts_against_its_rerun() -> None:
    queue = preempting()
    queue.push("c", 12.0, "c3", 2.0)  # runs before the rerun: 10 + 0.2 + 2 + 1 + 0.25 > 13
    assert queue.victim([LONG_AHEAD], now=10.0) is None
    queue.push("d", 14.0, "d3", 9.0)  # due after it: not in its way
    assert queue.cancel("c") == ["c3"]
    assert queue.victim([LONG_AHEAD], now=10.0) == 0


def test_no_preemption_when_the_work_thrown_away_would_make_another_listener_late() -> None:
    # In the worker since 9.5: half of it (0.5 s) would be thrown away. Job e, due after it,
    # ends at 12.7 without the pre-emption and 13.2 with it: past 13.2 - 0.25 slack.
    halfway = Running(deadline=13.0, cost_s=1.0, started=9.5, preemptions=0)
    queue = preempting()
    assert queue.victim([halfway], now=10.0) == 0
    queue.push("e", 13.2, "e3", 2.0)
    assert queue.victim([halfway], now=10.0) is None


def test_no_preemption_with_a_free_worker_fifo_or_the_setting_off() -> None:
    assert preempting().victim([LONG_AHEAD], now=10.0, workers=2) is None
    fifo: Scheduler[str] = Scheduler("fifo", max_preemptions=1)
    fifo.push("new", 10.0, "new0", 0.2)
    assert fifo.victim([LONG_AHEAD], now=10.0) is None
    off: Scheduler[str] = Scheduler(max_preemptions=0)
    off.push("new", 10.0, "new0", 0.2)
    assert off.victim([LONG_AHEAD], now=10.0) is None
    assert Scheduler(max_preemptions=1).victim([LONG_AHEAD], now=10.0) is None  # nothing queued


def test_of_two_workers_the_job_due_last_is_stopped() -> None:
    later = Running(deadline=20.0, cost_s=1.0, started=9.9, preemptions=0)
    assert preempting().victim([LONG_AHEAD, later], now=10.0, workers=2) == 1


@pytest.mark.parametrize(("max_preemptions", "slack"), [(-1, 0.25), (1, -0.1), (1, math.nan)])
def test_bad_preemption_settings_are_refused(max_preemptions: int, slack: float) -> None:
    with pytest.raises(ValueError, match=r"max_preemptions|preempt_slack_s"):
        Scheduler(max_preemptions=max_preemptions, preempt_slack_s=slack)


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
            new = (op[1], len(pushed))
            queue.push(op[1], op[2], new)
            pushed.append(new)
        elif op[0] == "pop":
            if (popped := queue.pop()) is not None:
                taken.append(popped)
        elif op[0] == "cancel":
            removed += queue.cancel(op[1])
        elif (discarded := queue.discard(op[1])) is not None:
            removed.append(discarded)
    rest = []
    while (left := queue.pop()) is not None:
        rest.append(left)
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


# One worker under random pushes, cancels and pre-emptions: `start` takes the job ranked first
# into the worker, `finish` completes it, `arrive` pushes a job due now and stops the running
# one when victim() says so (the service's rule), requeueing it as the service does.
SIM_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("push"), OWNERS, st.floats(0, 20, allow_nan=False)),
        st.tuples(st.just("arrive"), OWNERS),
        st.tuples(st.just("start")),
        st.tuples(st.just("finish")),
        st.tuples(st.just("cancel"), OWNERS),
        st.tuples(st.just("tick"), st.floats(0, 2, allow_nan=False)),
    ),
    max_size=80,
)


@settings(max_examples=examples(100), deadline=None)
@given(ops=SIM_OPS, bound=st.integers(1, 3), slack=st.floats(0, 1, allow_nan=False))
def test_preemption_loses_duplicates_and_reorders_nothing(
    ops: list[tuple], bound: int, slack: float
) -> None:
    queue: Scheduler[tuple[str, int]] = Scheduler(max_preemptions=bound, preempt_slack_s=slack)
    now = 0.0
    jobs: dict[tuple[str, int], dict] = {}  # item -> ticket, deadline, preemptions
    running: tuple[str, int] | None = None
    started = 0.0
    done: list[tuple[str, int]] = []
    removed: list[tuple[str, int]] = []

    def push(owner: str, due: float) -> None:
        item = (owner, len(jobs))
        jobs[item] = {"ticket": queue.push(owner, due, item, 0.5), "due": due, "stops": 0}

    for op in ops:
        if op[0] == "push":
            push(op[1], now + op[2])
        elif op[0] == "arrive":
            push(op[1], now)
            if running is not None:
                job = jobs[running]
                view = Running(job["due"], 0.5, started, job["stops"])
                if queue.victim([view], now) == 0:
                    job["stops"] += 1
                    queue.requeue(job["ticket"], running[0], job["due"], running, 0.5)
                    running = None
        elif op[0] == "start" and running is None:
            running, started = queue.pop(), now
        elif op[0] == "finish" and running is not None:
            done.append(running)
            running = None
        elif op[0] == "cancel":
            removed += queue.cancel(op[1])
            if running is not None and running[0] == op[1]:
                removed.append(running)
                running = None
        elif op[0] == "tick":
            now += op[1]
    if running is not None:
        done.append(running)
    while (item := queue.pop()) is not None:
        done.append(item)
    assert sorted(done + removed) == sorted(jobs)  # each job exactly once
    for owner in "abcd":
        arrivals = [n for o, n in done if o == owner]
        assert arrivals == sorted(arrivals)  # a session's jobs finish in its order
    assert all(job["stops"] <= bound for job in jobs.values())

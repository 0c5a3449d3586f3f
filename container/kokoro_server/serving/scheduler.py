"""Which queued synthesis job a free worker takes next, and when a session's next job is due.

Pure: no threads, no clock, no I/O; the synthesis service holds the lock and reads the clock.

Policies:
- `deadline` (default): earliest deadline first across owners (sessions), ties by arrival.
- `fifo`: arrival order, as a plain thread-pool queue would take it.

Rules that hold under both:
- An owner's jobs leave in the order it pushed them: only the oldest job of each owner
  competes, with the earliest deadline among that owner's queued jobs (a later job that is
  due sooner makes the jobs ahead of it due sooner too, since they must run first).
- `cancel(owner)` removes all of an owner's queued jobs at once.
- Starvation guard: a job is overtaken by at most `max_overtakes` later-arriving jobs. Once a
  job has been passed that often it is urgent, and urgent jobs leave by arrival. (EDF alone
  already ends every wait, since work arriving after a deadline is due after it too; the guard
  bounds the count for deadlines that keep arriving earlier, e.g. a very slow session.)

Pre-emption (`deadline` only, `max_preemptions` > 0): a model call is not shared, so a job due
now (a newcomer's first sentence) would otherwise wait for the whole job in the worker.
`victim()` names a running job to stop and `requeue()` puts it back where it was: ahead of
its owner's later jobs, with its ticket and deadline, so its owner's order never changes. A
job is stopped only when the job the scheduler ranks first is due before the running one
could finish, and when nobody pays for it with a gap: taking the queue in deadline order
with the stopped job in it again in full (a model call does not resume), it must still end
`preempt_slack_s` before its own deadline, and so must every queued job that would have
without the pre-emption (the work thrown away delays the jobs due after it). Each job is
pre-empted at most `max_preemptions` times, so no session starves. Costs are the service's
estimates (capacity.CapacityMeter.cost_s); `math.inf` (nothing measured yet) never
pre-empts. Jobs not queued yet (a session's next sentence) are not foreseen.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from kokoro_server.config import POLICIES


@dataclass
class _Entry[T]:
    owner: Hashable
    deadline: float
    seq: int  # arrival number: ties and the FIFO order
    item: T
    overtaken: int = 0  # later-arriving jobs taken before this one
    cost_s: float = 0.0  # expected model time (pre-emption only)


@dataclass(frozen=True)
class Running:
    """A job in a worker, as the pre-emption rule sees it."""

    deadline: float
    cost_s: float  # expected model time of the whole job: a stopped job reruns all of it
    started: float  # when the worker took it (the service's clock)
    preemptions: int  # how often it was pre-empted already


class Scheduler[T]:
    def __init__(
        self,
        policy: str = "deadline",
        max_overtakes: int = 32,
        max_preemptions: int = 0,
        preempt_slack_s: float = 0.25,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(
                f"scheduler policy must be one of {', '.join(POLICIES)}, not {policy!r}"
            )
        if max_overtakes < 0:
            raise ValueError(f"max_overtakes must be 0 or more, got {max_overtakes}")
        if max_preemptions < 0:
            raise ValueError(f"max_preemptions must be 0 or more, got {max_preemptions}")
        if not preempt_slack_s >= 0:
            raise ValueError(f"preempt_slack_s must be 0 or more, got {preempt_slack_s}")
        self.policy = policy
        self.max_overtakes = max_overtakes
        self.max_preemptions = max_preemptions
        self.preempt_slack_s = preempt_slack_s
        self._queues: dict[Hashable, deque[_Entry[T]]] = {}
        self._owner_of: dict[int, Hashable] = {}  # ticket -> owner, for discard()
        self._next_seq = 0
        self.taken_by_guard = 0  # how often the starvation guard decided (for the benchmark)

    def __len__(self) -> int:
        return len(self._owner_of)

    def push(self, owner: Hashable, deadline: float, item: T, cost_s: float = 0.0) -> int:
        """Queue one job; returns its ticket (for discard and requeue)."""
        seq = self._next_seq
        self._next_seq += 1
        entry = _Entry(owner, deadline, seq, item, cost_s=cost_s)
        self._queues.setdefault(owner, deque()).append(entry)
        self._owner_of[seq] = owner
        return seq

    def requeue(
        self, ticket: int, owner: Hashable, deadline: float, item: T, cost_s: float = 0.0
    ) -> None:
        """Put a pre-empted job back: ahead of every job its owner queued after it (those
        have later tickets), with its ticket and deadline. Its overtake count starts again."""
        if ticket in self._owner_of or not 0 <= ticket < self._next_seq:
            raise ValueError(f"ticket {ticket} is queued already or was never issued")
        queue = self._queues.setdefault(owner, deque())
        ahead = sum(1 for entry in queue if entry.seq < ticket)
        queue.insert(ahead, _Entry(owner, deadline, ticket, item, cost_s=cost_s))
        self._owner_of[ticket] = owner

    def _next(self) -> tuple[_Entry[T], deque[_Entry[T]], bool]:
        """The job pop() takes next, its owner's queue, and whether the guard chose it."""
        heads = [(queue[0], queue) for queue in self._queues.values()]
        best = min(heads, key=self._key)
        urgent = [h for h in heads if h[0].overtaken >= self.max_overtakes]
        if urgent:
            head, queue = min(urgent, key=lambda h: h[0].seq)
            return head, queue, best[0] is not head
        return best[0], best[1], False

    def pop(self) -> T | None:
        """The next job to run, removed from the queue; None when nothing is queued."""
        if not self._queues:
            return None
        head, queue, by_guard = self._next()
        self.taken_by_guard += by_guard
        queue.popleft()
        if not queue:
            del self._queues[head.owner]
        del self._owner_of[head.seq]
        for waiting in self._queues.values():
            for entry in waiting:
                if entry.seq < head.seq:
                    entry.overtaken += 1
        return head.item

    def cancel(self, owner: Hashable) -> list[T]:
        """Remove every queued job of `owner`; returns them in their order."""
        queue = self._queues.pop(owner, deque())
        for entry in queue:
            del self._owner_of[entry.seq]
        return [entry.item for entry in queue]

    def discard(self, ticket: int) -> T | None:
        """Remove one queued job (its waiter gave up); None if it already left the queue."""
        owner = self._owner_of.pop(ticket, None)
        if owner is None:
            return None
        queue = self._queues[owner]
        entry = next(e for e in queue if e.seq == ticket)
        queue.remove(entry)
        if not queue:
            del self._queues[owner]
        return entry.item

    def victim(self, running: Sequence[Running], now: float, workers: int = 1) -> int | None:
        """Which running job to stop for the job ranked first (its index), or None.

        Only when every worker is busy; see the module docstring for the rule. Among the
        jobs that qualify, the one due last (its listener has the most audio in hand).
        """
        if (
            self.policy != "deadline"
            or self.max_preemptions == 0
            or not self._queues
            or len(running) < max(1, workers)
        ):
            return None
        head, queue, _ = self._next()
        due = min(entry.deadline for entry in queue)
        if not math.isfinite(head.cost_s):
            return None
        queued = [(e.deadline, e.seq, e.cost_s) for q in self._queues.values() for e in q]
        chosen: int | None = None
        for index, job in enumerate(running):
            if job.preemptions >= self.max_preemptions or not math.isfinite(job.cost_s):
                continue
            left = job.cost_s - (now - job.started)
            if left <= 0 or due >= now + left:
                continue  # due to finish now, or the first job loses nothing by waiting
            kept = self._on_time(now + left, queued, workers)
            after = self._on_time(now, [*queued, (job.deadline, -1, job.cost_s)], workers)
            if not after.pop(-1):
                continue  # its own listener would run out of audio
            if any(kept[seq] and not on_time for seq, on_time in after.items()):
                continue  # the work it loses would make another listener run out
            if chosen is None or job.deadline > running[chosen].deadline:
                chosen = index
        return chosen

    def _on_time(
        self, start: float, jobs: list[tuple[float, int, float]], workers: int
    ) -> dict[int, bool]:
        """Which jobs (deadline, ticket, cost) end `preempt_slack_s` before their deadlines
        when the workers take them in deadline order from `start`."""
        clock, result = start, {}
        for deadline, seq, cost in sorted(jobs):
            clock += cost / max(1, workers)
            result[seq] = clock + self.preempt_slack_s <= deadline
        return result

    def _key(self, head: tuple[_Entry[T], deque[_Entry[T]]]) -> tuple[float, int]:
        entry, queue = head
        if self.policy == "fifo":
            return (0.0, entry.seq)
        return (min(e.deadline for e in queue), entry.seq)


class PlaybackClock:
    """When a session's listener runs out of audio, so its next sentence's deadline.

    The listener plays audio in real time from its first byte. Audio handed to the sender at
    `now` plays from `now`, or after what is still playing; a sentence is due when the audio
    before it ends. Nothing playing (first sentence, after a pause or a barge-in): due now.
    """

    def __init__(self) -> None:
        self.ends_at: float | None = None

    def deadline(self, now: float) -> float:
        return now if self.ends_at is None else max(now, self.ends_at)

    def queued(self, now: float, duration_s: float) -> None:
        self.ends_at = self.deadline(now) + duration_s

    def reset(self) -> None:
        self.ends_at = None

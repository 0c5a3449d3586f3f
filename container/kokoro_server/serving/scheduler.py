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
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

from kokoro_server.config import POLICIES


@dataclass
class _Entry[T]:
    owner: Hashable
    deadline: float
    seq: int  # arrival number: ties and the FIFO order
    item: T
    overtaken: int = 0  # later-arriving jobs taken before this one


class Scheduler[T]:
    def __init__(self, policy: str = "deadline", max_overtakes: int = 32) -> None:
        if policy not in POLICIES:
            raise ValueError(
                f"scheduler policy must be one of {', '.join(POLICIES)}, not {policy!r}"
            )
        if max_overtakes < 0:
            raise ValueError(f"max_overtakes must be 0 or more, got {max_overtakes}")
        self.policy = policy
        self.max_overtakes = max_overtakes
        self._queues: dict[Hashable, deque[_Entry[T]]] = {}
        self._owner_of: dict[int, Hashable] = {}  # ticket -> owner, for discard()
        self._next_seq = 0
        self.taken_by_guard = 0  # how often the starvation guard decided (for the benchmark)

    def __len__(self) -> int:
        return len(self._owner_of)

    def push(self, owner: Hashable, deadline: float, item: T) -> int:
        """Queue one job; returns its ticket (for discard)."""
        seq = self._next_seq
        self._next_seq += 1
        self._queues.setdefault(owner, deque()).append(_Entry(owner, deadline, seq, item))
        self._owner_of[seq] = owner
        return seq

    def pop(self) -> T | None:
        """The next job to run, removed from the queue; None when nothing is queued."""
        if not self._queues:
            return None
        heads = [(queue[0], queue) for queue in self._queues.values()]
        urgent = [h for h in heads if h[0].overtaken >= self.max_overtakes]
        if urgent:
            head, queue = min(urgent, key=lambda h: h[0].seq)
            self.taken_by_guard += min(heads, key=self._key)[0] is not head
        else:
            head, queue = min(heads, key=self._key)
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

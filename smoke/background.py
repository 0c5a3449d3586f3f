"""Waits with a deadline that also notice an SDK failing inside its own background task.

The HTTP/2 SDK runs each request in a task nobody awaits; when that task fails (no
credentials in its chain, TLS, DNS) the caller keeps waiting for a response that cannot come,
and the exception only shows up later as "Task exception was never retrieved". While a check
runs, `BackgroundTasks` records every task the event loop creates, and `watched` turns the
first one that failed into `BackgroundFailure` at once, instead of a silent timeout.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Coroutine
from typing import Any, Self

POLL_S = 0.2  # how often a wait looks at the recorded tasks


class BackgroundFailure(Exception):
    """A task nobody awaited failed; `error` is its exception."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


class BackgroundTasks:
    """While entered, every task created on the running loop is recorded (weakly)."""

    def __init__(self) -> None:
        self._tasks: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()
        self._awaited: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()

    def __enter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self._previous = self._loop.get_task_factory()
        self._loop.set_task_factory(self._create)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.set_task_factory(self._previous)

    def _create(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
    ) -> asyncio.Future[Any]:
        if self._previous is not None:
            task = self._previous(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        self._tasks.add(task)
        return task

    def awaited(self, task: asyncio.Future[Any]) -> None:
        """A task its creator awaits itself: its failure is not a background failure."""
        self._awaited.add(task)

    def failure(self) -> BaseException | None:
        """The exception of a recorded task that failed and that nobody awaits."""
        for task in list(self._tasks):
            if task in self._awaited or not task.done() or task.cancelled():
                continue
            error = task.exception()  # also marks it retrieved: reported here, not logged
            if error is not None:
                return error
        return None


async def watched[T](awaitable: Awaitable[T], timeout_s: float, background: BackgroundTasks) -> T:
    """`awaitable`'s result; TimeoutError after `timeout_s`; BackgroundFailure as soon as a
    task nobody awaits is seen failing."""
    task = asyncio.ensure_future(awaitable)
    background.awaited(task)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    try:
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"nothing within {timeout_s:g} s")
            done, _ = await asyncio.wait({task}, timeout=min(POLL_S, remaining))
            if done:
                return task.result()
            error = background.failure()
            if error is not None:
                raise BackgroundFailure(error) from error
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})  # let it finish cancelling; its outcome is dropped
            if not task.cancelled():
                task.exception()  # retrieved, so never logged as "never retrieved"

"""The one way to serve an app on 127.0.0.1 in process: uvicorn, exactly as production serves.

- `serve(app)`: in the caller's event loop (a test that also checks the loop's tasks);
- `AppServer(app)`: on a background thread with its own loop, for synchronous callers;
- `BackgroundLoop(open_)`: any async context manager (several servers) on such a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from typing import Any, Self

import uvicorn

from devkit.processes import free_port

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0


def loopback_server(app: Any, port: int, **uvicorn_options: Any) -> uvicorn.Server:
    """uvicorn for `app` on 127.0.0.1:port, configured as the tests and tools run it."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
        **uvicorn_options,
    )
    return uvicorn.Server(config)


@contextlib.asynccontextmanager
async def serve(app: Any, port: int | None = None, **uvicorn_options: Any) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 in this event loop; yields its base URL."""
    async with run_server(loopback_server(app, port or free_port(), **uvicorn_options)) as url:
        yield url


@contextlib.asynccontextmanager
async def run_server(server: uvicorn.Server) -> AsyncIterator[str]:
    """Run a configured uvicorn server in this event loop until the block ends."""
    port = server.config.port
    task = asyncio.create_task(server.serve(), name=f"uvicorn-{port}")
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError(f"uvicorn on port {port} stopped before it started")
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, STOP_TIMEOUT_S)


class BackgroundLoop[T]:
    """Runs the async context manager `open_()` on its own thread and event loop.

    `start()` returns once it has been entered (its value is `self.value`); `stop()` exits
    it and joins the thread; `call(fn)` runs fn on that loop (to look at its tasks).
    """

    def __init__(self, open_: Callable[[], contextlib.AbstractAsyncContextManager[T]]) -> None:
        self._open = open_
        self._value: T | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with self._open() as value:
                self._value = value
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # surfaced by start()
            self._failure = exc
            self._ready.set()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    @property
    def value(self) -> T:
        if self._value is None:
            raise RuntimeError("not started")
        return self._value

    def start(self) -> Self:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S) or self._failure is not None:
            raise RuntimeError(f"background loop did not start: {self._failure!r}")
        return self

    def stop(self) -> None:
        """Exit the context manager and join the thread (a second call does nothing)."""
        if not self._thread.is_alive():
            return
        if self.loop is not None and self._stop is not None:
            # The loop may be closing already (another thread's stop() got there first).
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(STOP_TIMEOUT_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call[R](self, fn: Callable[[], R]) -> R:
        """fn() on the background loop; its result."""
        if self.loop is None:
            raise RuntimeError("not started")

        async def wrapper() -> R:
            return fn()

        future: Future[R] = asyncio.run_coroutine_threadsafe(wrapper(), self.loop)
        return future.result(timeout=5)


class AppServer(BackgroundLoop[str]):
    """`serve(app)` on a background thread: for callers without an event loop of their own."""

    def __init__(self, app: Any, port: int | None = None, **uvicorn_options: Any) -> None:
        self.app = app
        self.port = port or free_port()
        self.server = loopback_server(app, self.port, **uvicorn_options)  # its connections
        super().__init__(lambda: run_server(self.server))

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

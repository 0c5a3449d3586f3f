"""Fixtures: a real uvicorn server on loopback, running the real Kokoro-82M model on CPU.

The model is loaded once per test run and shared by every server the tests start, so tests
can start servers with different limits (busy, idle timeout) without paying the load again.
Each server runs in its own thread and event loop, exactly as uvicorn serves in production,
and the tests talk to it over real sockets with the `websockets` client.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest
import uvicorn

from demo.server_process import free_port
from kokoro_server.app import create_app
from kokoro_server.config import Settings
from kokoro_server.synthesis import SynthesisService


class ThreadedServer:
    """uvicorn serving one app on 127.0.0.1 from a background thread."""

    def __init__(self, settings: Settings, service: SynthesisService) -> None:
        self.port = free_port()
        self.app = create_app(dataclasses.replace(settings, port=self.port), service)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            ws="websockets-sansio",
            ws_max_size=settings.max_frame_bytes * 4,
            log_config=None,
            access_log=False,
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve()

        asyncio.run(main())

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/invocations-bidirectional-stream"

    def start(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run fn on the server's event loop (to inspect its tasks and sessions)."""
        assert self.loop is not None

        async def wrapper() -> Any:
            return fn()

        future: Future[Any] = asyncio.run_coroutine_threadsafe(wrapper(), self.loop)
        return future.result(timeout=5)

    def session_tasks(self) -> list[str]:
        def names() -> list[str]:
            prefixes = ("recv-", "synth-", "send-")
            return [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith(prefixes)]

        return self.call(names)

    def active_sessions(self) -> int:
        return self.call(lambda: len(self.app.state.active_sessions))


@pytest.fixture(scope="session")
def base_settings() -> Settings:
    return Settings(host="127.0.0.1", intra_op_threads=2)


@pytest.fixture(scope="session")
def service(base_settings: Settings) -> Iterator[SynthesisService]:
    """The real model, loaded and warmed up once."""
    svc = SynthesisService(base_settings)
    svc.load()
    assert svc.ready, svc.failure
    yield svc
    svc.shutdown()


@pytest.fixture(scope="session")
def server(base_settings: Settings, service: SynthesisService) -> Iterator[ThreadedServer]:
    srv = ThreadedServer(base_settings, service).start()
    yield srv
    srv.stop()


@pytest.fixture
def make_server(
    base_settings: Settings, service: SynthesisService
) -> Iterator[Callable[..., ThreadedServer]]:
    """A fresh server sharing the loaded model, with some settings overridden."""
    started: list[ThreadedServer] = []

    def make(**overrides: Any) -> ThreadedServer:
        srv = ThreadedServer(dataclasses.replace(base_settings, **overrides), service).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()

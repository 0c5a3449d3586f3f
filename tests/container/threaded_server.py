"""uvicorn serving the real app on 127.0.0.1 from a background thread, for tests."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Self

import uvicorn

from demo.server_process import free_port
from kokoro_server.app import create_app
from kokoro_server.config import Settings
from kokoro_server.synthesis import SynthesisService


class AppServer:
    """uvicorn serving any ASGI app on 127.0.0.1 from a background thread with its own loop."""

    def __init__(self, app: Any, port: int | None = None, **config: Any) -> None:
        self.app = app
        self.port = port or free_port()
        uvicorn_config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_config=None, access_log=False, **config
        )
        self.server = uvicorn.Server(uvicorn_config)
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

    def start(self) -> Self:
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run fn on the server's event loop (to inspect its tasks and sessions)."""
        assert self.loop is not None

        async def wrapper() -> Any:
            return fn()

        future: Future[Any] = asyncio.run_coroutine_threadsafe(wrapper(), self.loop)
        return future.result(timeout=5)


class ThreadedServer(AppServer):
    """The real Kokoro container app, sharing an already loaded SynthesisService."""

    def __init__(self, settings: Settings, service: SynthesisService) -> None:
        port = free_port()
        super().__init__(
            create_app(dataclasses.replace(settings, port=port), service),
            port=port,
            ws="websockets-sansio",
            ws_max_size=settings.max_frame_bytes * 4,
        )

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/invocations-bidirectional-stream"

    def session_tasks(self) -> list[str]:
        def names() -> list[str]:
            prefixes = ("recv-", "synth-", "send-")
            return [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith(prefixes)]

        return self.call(names)

    def active_sessions(self) -> int:
        return self.call(lambda: len(self.app.state.active_sessions))

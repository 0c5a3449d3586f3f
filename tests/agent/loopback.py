"""Helpers for the agent tests: a real uvicorn server on loopback inside the test loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from demo.server_process import free_port


@contextlib.asynccontextmanager
async def serve_app(app: Any) -> AsyncIterator[str]:
    """Run `app` with uvicorn on 127.0.0.1 inside this event loop; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(10):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def leftover_tasks_and_threads(
    before: set[asyncio.Task], threads_before: set[threading.Thread], within_s: float = 5.0
) -> set:
    """New asyncio tasks or threads still alive after `within_s` (empty when all ended)."""
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        leaked: set = {t for t in asyncio.all_tasks() - before if not t.done()}
        leaked.discard(asyncio.current_task())
        leaked |= {t for t in set(threading.enumerate()) - threads_before if t.is_alive()}
        if not leaked or asyncio.get_running_loop().time() > deadline:
            return leaked
        await asyncio.sleep(0.05)

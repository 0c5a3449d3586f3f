"""Shutting down without cutting anyone off mid-sentence (SIGTERM on an update or scale-in).

SageMaker stops a container with SIGTERM and kills it 30 s later. uvicorn's own shutdown
closes every WebSocket at once (close 1012), so a caller lost the sentence it was hearing.
`DrainingServer` drains first: it stops accepting connections and refuses new work (`busy`,
cause "draining"), lets each session finish what it was given, and ends a session once it
has been quiet for QUIET_S (nothing queued or arriving: a caller between answers) with a
fatal `shutting_down` error and close 1012, so its client reconnects elsewhere. Whatever is
still speaking at `drain_s` is closed by uvicorn as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import uvicorn

from kokoro_server.logs import fields
from kokoro_server.serving.session import Session

log = logging.getLogger("kokoro.serve")

QUIET_S = 1.0  # a session quiet this long has nothing in flight: it can be closed
POLL_S = 0.1


async def drain(state: Any, drain_s: float) -> int:
    """Refuse new work, close sessions as they fall quiet; the sessions still open at the
    deadline (returned, 0 when every one ended in time)."""
    state.draining = True
    sessions: set[Any] = state.active_sessions
    deadline = time.perf_counter() + drain_s
    closing: set[asyncio.Task[None]] = set()
    log.info("draining", extra=fields(sessions=len(sessions), drain_s=drain_s))
    while sessions and time.perf_counter() < deadline:
        for session in list(sessions):
            quiet = isinstance(session, Session) and session.quiet_s() >= QUIET_S
            if quiet and not session.shutting_down:
                closing.add(asyncio.create_task(session.shut_down()))
        await asyncio.sleep(POLL_S)
    left = len(sessions)
    log.info("drained", extra=fields(sessions_left=left))
    return left


class DrainingServer(uvicorn.Server):
    """uvicorn's server, draining sessions before its own shutdown (see module docstring)."""

    def __init__(self, config: uvicorn.Config, drain_s: float) -> None:
        super().__init__(config)
        self.drain_s = drain_s

    async def shutdown(self, sockets: Any = None) -> None:
        for server in self.servers:
            server.close()  # no new connections while the others finish
        app = self.config.loaded_app
        state = getattr(app, "state", None)
        if state is None:  # wrapped by a middleware uvicorn added: find the Starlette app
            state = getattr(getattr(app, "app", None), "state", None)
        if self.drain_s > 0 and state is not None and hasattr(state, "active_sessions"):
            await drain(state, self.drain_s)
        await super().shutdown(sockets)

"""Client behaviours that end a session at each phase, and a wait for the server to let go."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

from websockets.asyncio.client import ClientConnection, connect

from tests.support.ws_frames import is_type, read_until, send

LONG = "This sentence is long enough to be sent as many small audio frames. " * 3


async def first_audio(ws: ClientConnection) -> None:
    await read_until(ws, lambda f: isinstance(f, bytes), timeout=10)


async def before_start(ws: ClientConnection) -> None:
    pass


async def after_start(ws: ClientConnection) -> None:
    await send(ws, {"type": "start", "format": "pcm"})


async def mid_text(ws: ClientConnection) -> None:
    await send(ws, {"type": "text", "text": "Half a sentence that never"})


async def mid_synthesis(ws: ClientConnection) -> None:
    await send(ws, {"type": "text", "text": "A complete sentence. Then"})
    await asyncio.sleep(0.05)  # the worker is now sleeping inside the tone "inference"


async def mid_audio(ws: ClientConnection) -> None:
    await send(ws, {"text": LONG})
    await first_audio(ws)


async def during_flush(ws: ClientConnection) -> None:
    await send(ws, {"type": "text", "text": "One. Two. Three"})
    await send(ws, {"type": "flush"})


async def after_close(ws: ClientConnection) -> None:
    await send(ws, {"text": LONG})
    await send(ws, {"type": "close"})


async def after_session_end(ws: ClientConnection) -> None:
    await send(ws, {"text": "Short."})
    await send(ws, {"type": "close"})
    await read_until(ws, is_type("session_end"), timeout=10)


PHASES: dict[str, Callable[[ClientConnection], Awaitable[None]]] = {
    "before-start": before_start,
    "after-start": after_start,
    "mid-text": mid_text,
    "mid-synthesis": mid_synthesis,
    "mid-audio": mid_audio,
    "during-flush": during_flush,
    "after-close": after_close,
    "after-session-end": after_session_end,
}


async def drop_at(url: str, phase: str, abrupt: bool) -> None:
    # max_queue=None: a bounded client queue full of unread audio stalls the client's own
    # close handshake for its 10 s close_timeout (the server is released in milliseconds).
    ws = await connect(url, max_queue=None)
    await PHASES[phase](ws)
    if abrupt:
        ws.transport.abort()  # TCP reset: no close frame, no goodbye
    else:
        await ws.close()


def threads_back_to(count: int, timeout: float = 5.0) -> int:
    """Waits (bounded) until no more than `count` threads are alive; returns how many are.
    A dropped sentence may still be in the worker: it must finish, not stay."""
    deadline = time.monotonic() + timeout
    while threading.active_count() > count and time.monotonic() < deadline:
        time.sleep(0.005)
    return threading.active_count()


def wait_released(srv, timeout: float = 5.0) -> float:
    """Seconds until the server holds no session task and no active session."""
    started = time.monotonic()
    while srv.session_tasks() or srv.active_sessions():
        assert time.monotonic() - started < timeout, f"still held: {srv.session_tasks()}"
        time.sleep(0.005)
    return time.monotonic() - started

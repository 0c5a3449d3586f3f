"""A flood of frames cannot hold the server's event loop: the session takes one frame per
loop turn, so /ping and every other session get the loop between any two of its frames.

Counted, not timed: a task on the server's own loop (the real server on loopback, tone test
double) records how many of a flooding session's frames were handled between two of its
turns. Before one frame per turn, a backlog was handled whole: hundreds of frames in one
turn (the stalls of docs/reliability.md, "Event-loop stalls under hostile streams")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.asyncio.client import connect

from tests.support.servers import ThreadedServer

FRAMES = 3000
WAIT_S = 30.0


def test_a_flood_of_frames_is_handled_one_per_loop_turn(
    make_tone_server: Callable[..., ThreadedServer],
) -> None:
    server = make_tone_server()
    sessions = server.app.state.active_sessions

    async def per_turn() -> list[int]:
        """On the server's loop: frames the session handled between two turns of this task."""
        handled: list[int] = []
        last = None
        while True:
            # A session's bad frames, counted in its record (one-shot calls have none).
            counts = [getattr(getattr(s, "record", None), "bad_frames", 0) for s in sessions]
            flooding = [count for count in counts if count]
            if flooding:
                now = flooding[0]
                if last is not None:
                    handled.append(now - last)
                last = now
                if now >= FRAMES:
                    return handled
            await asyncio.sleep(0)

    async def flood() -> list[int]:
        server_loop = server.loop
        assert server_loop is not None, "a started server has its loop"
        watcher = asyncio.run_coroutine_threadsafe(per_turn(), server_loop)
        async with connect(server.ws, max_queue=None) as ws:
            await ws.send("{")
            for _ in range(FRAMES - 1):
                await ws.send("{")  # truncated JSON: an `invalid_json` answer each
            result = await asyncio.wait_for(asyncio.wrap_future(watcher), WAIT_S)
        return result

    handled = asyncio.run(flood())
    assert sum(handled) >= FRAMES - 1
    assert max(handled) <= 2, f"{max(handled)} frames in one loop turn"

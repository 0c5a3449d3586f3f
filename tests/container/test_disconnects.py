"""Client disconnects at every phase of a session: the server must release it completely.

Each phase is tried with a clean close frame and with an abrupt TCP reset. Afterwards the
session's three tasks are gone, the server counts no active session, no thread is left
behind, and a new session on the same server still gets its audio. The 200-session run
measures memory with tracemalloc (Python allocations, all threads) and RSS.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import threading
import tracemalloc

import psutil
import pytest
from websockets.asyncio.client import connect

from devkit.tone import tone_bytes
from tests.support.phases import PHASES, drop_at, threads_back_to, wait_released
from tests.support.ws_frames import is_type, read_until, send


async def healthy_session(url: str) -> None:
    async with connect(url) as ws:
        await send(ws, {"text": "Still here."})
        frames = await read_until(ws, is_type("flushed"), timeout=10)
    audio = b"".join(f for f in frames if isinstance(f, bytes))
    assert audio == tone_bytes("Still here.")


@pytest.fixture
def slow_tone_server(make_tone_server):
    # 0.2 s of simulated inference per sentence and 1 KiB audio frames keep each phase open
    # long enough to drop inside it.
    return make_tone_server(delay_s=0.2, audio_frame_bytes=1024)


@pytest.mark.parametrize("abrupt", [False, True], ids=["close-frame", "tcp-reset"])
@pytest.mark.parametrize("phase", list(PHASES))
def test_drop_releases_the_session(slow_tone_server, phase, abrupt, caplog):
    srv = slow_tone_server
    asyncio.run(healthy_session(srv.ws))  # warm: the synthesis thread exists from here on
    threads = threading.active_count()
    asyncio.run(drop_at(srv.ws, phase, abrupt))
    print(f" released in {wait_released(srv) * 1000:.0f} ms", end="")
    asyncio.run(healthy_session(srv.ws))
    wait_released(srv)
    # No more threads than before (one the harness started earlier may end meanwhile).
    assert threads_back_to(threads) <= threads
    # Regression: the sender used to write a whole sentence into a reset socket without
    # yielding, so asyncio logged "socket.send() raised exception." for every frame.
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


@pytest.mark.slow  # 200 sessions: a leak must show above the noise
def test_200_dropped_sessions_do_not_grow_memory(make_tone_server, caplog):
    """Tone double: 200 sessions over all phases, both ways of dropping."""
    srv = make_tone_server(audio_frame_bytes=1024)
    process = psutil.Process()
    cases = [(p, a) for p in PHASES for a in (False, True)]

    async def run(n: int) -> None:
        for i in range(n):
            phase, abrupt = cases[i % len(cases)]
            await drop_at(srv.ws, phase, abrupt)
        await healthy_session(srv.ws)

    asyncio.run(run(len(cases)))  # warm-up: caches, threads, lazily created objects
    wait_released(srv)
    threads = threading.active_count()
    # pytest keeps every captured log record in memory: silence the per-session INFO lines so
    # the measurement sees the server's memory, not the test harness's.
    quiet = [logging.getLogger(name) for name in ("kokoro", "uvicorn")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.WARNING)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    rss_before = process.memory_info().rss
    asyncio.run(run(200))
    wait_released(srv)
    # No more threads than before (one the harness started earlier may end meanwhile).
    assert threads_back_to(threads) <= threads
    gc.collect()
    after = tracemalloc.take_snapshot()
    rss_after = process.memory_info().rss
    tracemalloc.stop()
    for logger, level in zip(quiet, levels, strict=True):
        logger.setLevel(level)
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    print(
        f"\n200 dropped sessions: python heap {grown / 1024:+.1f} KiB (tracemalloc), "
        f"RSS {(rss_after - rss_before) / 2**20:+.1f} MiB, threads {threads} -> "
        f"{threading.active_count()}"
    )
    assert srv.session_tasks() == [] and srv.active_sessions() == 0
    assert threading.active_count() == threads
    # Regression: no frame written into a reset socket (asyncio warns from the 5th on).
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
    # A leaked session holds its tasks, queues, segmenter and socket objects (tens of KiB
    # each); 200 of them would be several MiB. 2 MiB leaves room for allocator noise.
    print("\n".join(str(s) for s in after.compare_to(before, "lineno")[:8]))
    assert grown < 2 * 2**20, json.dumps(
        [str(s) for s in after.compare_to(before, "lineno")[:10]], indent=1
    )


def test_frame_beyond_the_websocket_limit_closes_only_that_session(tone_server):
    """Frames over 4 x max_frame_bytes never reach the session: the WebSocket layer closes
    the connection with 1009 (message too big). The server and other sessions go on."""

    async def scenario() -> int | None:
        async with connect(tone_server.ws, max_queue=None) as other:
            async with connect(tone_server.ws, max_size=None) as ws:
                await ws.send("x" * (tone_server.app.state.settings.max_frame_bytes * 4 + 1))
                await asyncio.wait_for(ws.wait_closed(), 10)
                code = ws.close_code
            await send(other, {"text": "Unaffected."})
            frames = await read_until(other, is_type("flushed"), timeout=10)
        assert b"".join(f for f in frames if isinstance(f, bytes)) == tone_bytes("Unaffected.")
        return code

    assert asyncio.run(scenario()) == 1009
    wait_released(tone_server)
    asyncio.run(healthy_session(tone_server.ws))

"""On SIGTERM the server drains before it stops: new sessions get `busy` (cause draining),
an idle session is told `shutting_down` and closed with 1012 at once, a session that is
speaking first hears everything it was given. The real server (`serve`'s DrainingServer and
uvicorn options) on loopback with the tone test double; exit is asked for the way uvicorn's
SIGTERM handler asks (`should_exit`)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from devkit.processes import free_port, wait_healthy
from devkit.tone import ToneSynthesisService
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app
from kokoro_server.serving.drain import DrainingServer
from kokoro_server.serving.serve import uvicorn_options
from tests.support.ws_frames import Frame, read_until, send

WAIT_S = 20.0
ANSWER = "First of three. Second of three. Third of three."


@pytest.fixture
def draining_server(base_settings: Settings) -> Any:
    port = free_port()
    settings = dataclasses.replace(base_settings, port=port)
    service = ToneSynthesisService(settings, delay_s=0.4)
    service.load()
    app = create_app(settings, service)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        **uvicorn_options(settings),
    )
    server = DrainingServer(config, drain_s=10.0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_healthy(f"http://127.0.0.1:{port}", 10)
    yield server, f"ws://127.0.0.1:{port}/invocations-bidirectional-stream", app
    server.should_exit = True
    thread.join(WAIT_S)
    service.shutdown()


async def _until_closed(ws: Any) -> list[Frame]:
    frames: list[Frame] = []

    def keep(frame: Frame) -> bool:
        frames.append(frame)
        return False  # never done: read until the server closes (read_until then raises)

    with contextlib.suppress(ConnectionClosed):
        await read_until(ws, keep, timeout=WAIT_S)
    return frames


def test_sigterm_lets_speaking_sessions_finish_and_closes_the_idle_ones(draining_server):
    server, url, _ = draining_server

    async def scenario() -> tuple[list[Any], int | None, list[Any], int | None]:
        speaking = await connect(url, max_queue=None)
        idle = await connect(url, max_queue=None)
        await send(idle, {"type": "start"})
        await send(speaking, {"type": "text", "text": ANSWER})
        await send(speaking, {"type": "flush"})
        first = await read_until(speaking, lambda f: isinstance(f, bytes), timeout=WAIT_S)
        server.should_exit = True  # what uvicorn's SIGTERM handler does
        idle_frames = await _until_closed(idle)
        heard = first + await _until_closed(speaking)
        return idle_frames, idle.close_code, heard, speaking.close_code

    idle_frames, idle_code, heard, speaking_code = asyncio.run(scenario())
    assert [f["code"] for f in idle_frames if isinstance(f, dict)] == ["shutting_down"]
    assert idle_code == 1012
    controls = [f for f in heard if isinstance(f, dict)]
    completed = [f["index"] for f in controls if f["type"] == "synthesis_complete"]
    assert completed == [0, 1, 2], "a speaking session hears all it was given"
    assert [f["type"] for f in controls][-2:] == ["flushed", "error"]
    assert controls[-1]["code"] == "shutting_down" and speaking_code == 1012


def test_no_new_work_while_draining(draining_server):
    """The listener closes at once; a caller still connected (an HTTP keep-alive
    connection) gets `busy`, cause draining, for new work."""
    server, url, app = draining_server
    base = url.replace("ws://", "http://").rsplit("/", 1)[0]

    async def scenario() -> httpx.Response:
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            assert (await client.get(f"{base}/ping")).status_code == 200  # kept alive
            holder = await connect(url, max_queue=None)
            await send(holder, {"type": "text", "text": ANSWER})
            await send(holder, {"type": "flush"})
            await read_until(holder, lambda f: isinstance(f, bytes), timeout=WAIT_S)
            server.should_exit = True  # the holder keeps the drain going for a while
            while not app.state.draining:
                await asyncio.sleep(0.05)
            refused = await client.post(f"{base}/invocations", json={"text": "New work."})
            await _until_closed(holder)
            return refused

    refused = asyncio.run(scenario())
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "busy"
    assert "shutting down" in refused.json()["error"]["message"]

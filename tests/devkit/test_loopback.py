"""devkit's one loopback runner: the same uvicorn set-up in the caller's loop or on a thread."""

from __future__ import annotations

import httpx
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from devkit.loopback import AppServer, serve


def hello_app() -> Starlette:
    async def hello(_request: object) -> PlainTextResponse:
        return PlainTextResponse("hello")

    return Starlette(routes=[Route("/", hello)])


async def test_serve_in_this_loop_answers_and_stops() -> None:
    async with serve(hello_app()) as base, httpx.AsyncClient() as client:
        assert (await client.get(base + "/")).text == "hello"
    async with httpx.AsyncClient() as client:
        try:
            await client.get(base + "/")
            still_up = True
        except httpx.ConnectError:
            still_up = False
    assert not still_up


def test_app_server_on_a_thread_answers_and_stopping_twice_is_harmless() -> None:
    """Regression: a second stop() (a test stopping its server, then the fixture) raised
    'Event loop is closed'."""
    srv = AppServer(hello_app()).start()
    assert httpx.get(srv.http + "/").text == "hello"
    srv.stop()
    srv.stop()
    assert not srv.running

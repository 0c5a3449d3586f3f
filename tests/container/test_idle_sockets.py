"""Connections that never finish a request are closed after KOKORO_HEADER_TIMEOUT_S, served
exactly as `serve` runs uvicorn (serve.uvicorn_options), with the tone test double for the
model; an upgraded WebSocket session idle for longer is still served."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import connect

from devkit.loopback import AppServer
from devkit.processes import free_port
from devkit.tone import ToneSynthesisService
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app
from kokoro_server.serving.serve import uvicorn_options
from tests.support.ws_frames import is_type, read_until, send

HEADER_TIMEOUT_S = 1.0
CLOSE_WAIT_S = 10.0  # bound on every wait: far beyond the timeout, so no timing is asserted


@pytest.fixture(scope="module")
def guarded_server(tone_service: ToneSynthesisService, base_settings: Settings) -> Iterator[str]:
    port = free_port()
    settings = dataclasses.replace(base_settings, port=port, header_timeout_s=HEADER_TIMEOUT_S)
    server = AppServer(
        create_app(settings, tone_service), port=port, **uvicorn_options(settings)
    ).start()
    yield server.http
    server.stop()


def _open(base_url: str) -> socket.socket:
    port = int(base_url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_WAIT_S)
    sock.settimeout(CLOSE_WAIT_S)
    return sock


def _read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response (headers and a Content-Length body) from a kept-alive socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head


def _closed_by_server(sock: socket.socket) -> bool:
    """True when the server closes the connection (recv gives b'') within CLOSE_WAIT_S."""
    try:
        return sock.recv(4096) == b""
    except TimeoutError:
        return False
    finally:
        sock.close()


def test_a_connection_that_sends_nothing_is_closed_while_ping_answers(guarded_server):
    silent = [_open(guarded_server) for _ in range(5)]
    assert httpx.get(f"{guarded_server}/ping", timeout=CLOSE_WAIT_S).status_code == 200
    assert all(_closed_by_server(sock) for sock in silent)


def test_half_a_request_line_is_closed(guarded_server):
    sock = _open(guarded_server)
    sock.sendall(b"GET /pi")
    assert _closed_by_server(sock)


def test_a_kept_alive_connection_that_starts_a_second_request_and_stalls_is_closed(
    guarded_server,
):
    sock = _open(guarded_server)
    sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _read_response(sock).startswith(b"HTTP/1.1 200")
    sock.sendall(b"GET /ping HTTP/1.1\r\nHo")  # the next request's head never completes
    assert _closed_by_server(sock)


async def test_a_websocket_session_idle_past_the_header_timeout_is_still_served(guarded_server):
    ws_url = guarded_server.replace("http://", "ws://") + "/invocations-bidirectional-stream"
    async with connect(ws_url) as ws:
        await asyncio.sleep(HEADER_TIMEOUT_S * 2.5)
        await send(ws, {"type": "text", "text": "Still here after a quiet while."})
        await send(ws, {"type": "flush"})
        frames = await read_until(ws, is_type("sentence_start"), timeout=CLOSE_WAIT_S)
    assert any(is_type("sentence_start")(frame) for frame in frames)


async def test_a_bad_frame_logs_no_traceback(guarded_server, caplog):
    ws_url = guarded_server.replace("http://", "ws://") + "/invocations-bidirectional-stream"
    with caplog.at_level(logging.DEBUG):
        async with connect(ws_url) as ws:
            await ws.send("{not json")
            await ws.send(b"\xff\xfe")
            await send(ws, {"type": "no_such_type"})
            frames = await read_until(ws, is_type("error"), timeout=CLOSE_WAIT_S)
            await send(ws, {"type": "text", "text": "Still served."})
            await send(ws, {"type": "flush"})
            await read_until(ws, is_type("sentence_start"), timeout=CLOSE_WAIT_S)
    assert frames
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]

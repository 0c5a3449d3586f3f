"""Fixtures for the Pipecat integration: the real Kokoro server (real model, CPU) on loopback.

`server` / `make_server` / `service` come from tests/conftest.py and share one loaded model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import pytest

from devkit.loopback import AppServer
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.servers import ThreadedServer

__all__ = ["AppServer", "ThreadedServer"]


def ws_url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"


@pytest.fixture
def server_on_port(
    base_settings: Settings, service: SynthesisService
) -> Iterator[Callable[[int], AppServer]]:
    """Starts the real server on a given port (to stop it and start another in its place)."""
    started: list[AppServer] = []

    def start(port: int) -> AppServer:
        settings = dataclasses.replace(base_settings, port=port)
        srv = AppServer(
            create_app(settings, service),
            port=port,
            ws="websockets-sansio",
            ws_max_size=settings.max_frame_bytes * 4,
        ).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()

"""Loopback listeners that simulate failures the smoke check must diagnose.

- `SilentListener`: accepts TCP connections and never sends a byte. This is what a client
  meets when it connects to the wrong port of a host that accepts anyway (SageMaker's
  bidirectional API on 443 instead of 8443): the connection opens, nothing ever answers.
- `mute_tts_server`: a WebSocket that accepts the session and never sends anything.
- `audioless_tts_server`: a WebSocket that speaks the session protocol's control messages
  (sentence_start per sentence, cancelled, session_end) but never sends a binary frame.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Self

from websockets.asyncio.server import ServerConnection, serve


class SilentListener:
    """A TCP listener on 127.0.0.1 that accepts and holds connections, answering nothing."""

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self.port = int(self._sock.getsockname()[1])
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            self._held.append(conn)
            self.accepted += 1

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._held:
            conn.close()
        self._sock.close()


async def _mute(ws: ServerConnection) -> None:
    async for _ in ws:  # read everything, answer nothing
        pass


async def _audioless(ws: ServerConnection) -> None:
    index = 0
    async for raw in ws:
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "text":
            await ws.send(json.dumps({"type": "sentence_start", "index": index, "text": "?"}))
            index += 1
        elif kind == "cancel":
            await ws.send(json.dumps({"type": "cancelled", "dropped": 0}))
        elif kind == "close":
            await ws.send(json.dumps({"type": "session_end", "sentences": 0, "audio_s": 0}))
            return


@contextlib.asynccontextmanager
async def _ws_server(
    handler: Callable[[ServerConnection], Awaitable[None]],
) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"


def mute_tts_server() -> contextlib.AbstractAsyncContextManager[str]:
    return _ws_server(_mute)


def audioless_tts_server() -> contextlib.AbstractAsyncContextManager[str]:
    return _ws_server(_audioless)

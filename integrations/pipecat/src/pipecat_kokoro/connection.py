"""The transport seam: one bidirectional session, whatever carries it.

`KokoroTTSService` talks to a `Connector`, which opens `Connection`s: a WebSocket to a local
container here, a SageMaker bidirectional stream in `sagemaker.py`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .protocol import Audio, ServerMessage, decode_text_frame

WEBSOCKET_PATH = "/invocations-bidirectional-stream"


class ConnectionLost(Exception):
    """The session's transport ended or failed; the message says how."""


class Connection(Protocol):
    async def send(self, message: dict[str, Any]) -> None: ...

    def messages(self) -> AsyncIterator[ServerMessage]:
        """Server messages in order; raises ConnectionLost when the session ends."""
        ...

    async def close(self) -> None:
        """Tear the session down now (idempotent)."""
        ...


class Connector(Protocol):
    description: str

    async def connect(self) -> Connection: ...

    async def aclose(self) -> None: ...


class WebSocketConnection:
    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self._ws.send(json.dumps(message, ensure_ascii=False))
        except ConnectionClosed as exc:
            raise ConnectionLost(f"WebSocket closed: {exc}") from exc

    async def messages(self) -> AsyncIterator[ServerMessage]:
        try:
            async for frame in self._ws:
                yield Audio(frame) if isinstance(frame, bytes) else decode_text_frame(frame)
        except ConnectionClosed as exc:
            raise ConnectionLost(f"WebSocket closed: {exc}") from exc
        raise ConnectionLost(f"WebSocket closed by the server (code {self._ws.close_code})")

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()


class WebSocketConnector:
    """Sessions on the container's WebSocket route (a local container, or one on loopback)."""

    def __init__(self, url: str, *, open_timeout_s: float = 10.0) -> None:
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"Kokoro WebSocket URL must start with ws:// or wss://: {url!r}")
        if not url.rstrip("/").endswith(WEBSOCKET_PATH):
            url = url.rstrip("/") + WEBSOCKET_PATH
        self.url = url
        self.description = url
        self._open_timeout_s = open_timeout_s

    async def connect(self) -> WebSocketConnection:
        try:
            # Audio frames are at most 16 KiB; 1 MiB leaves room without being unbounded.
            ws = await connect(self.url, open_timeout=self._open_timeout_s, max_size=2**20)
        except (OSError, TimeoutError) as exc:
            raise ConnectionLost(f"cannot connect to {self.url}: {exc}") from exc
        except Exception as exc:  # handshake refused (InvalidStatus, InvalidURI, ...)
            raise ConnectionLost(f"cannot connect to {self.url}: {exc}") from exc
        return WebSocketConnection(ws)

    async def aclose(self) -> None:
        return None

"""A Starlette WebSocket as the session's Transport (session.py)."""

from __future__ import annotations

import contextlib

from starlette.websockets import WebSocket, WebSocketDisconnect

from kokoro_server.serving.connections import ABORT_EXTENSION
from kokoro_server.serving.session import TransportClosed


class StarletteTransport:
    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def receive(self) -> str | bytes:
        try:
            message = await self.websocket.receive()
        except (WebSocketDisconnect, RuntimeError) as exc:
            raise TransportClosed(str(exc)) from exc
        if message["type"] == "websocket.disconnect":
            raise TransportClosed(f"client closed ({message.get('code')})")
        if message.get("text") is not None:
            return str(message["text"])
        return message.get("bytes") or b""

    async def send_text(self, data: str) -> None:
        await self.websocket.send_text(data)

    async def send_bytes(self, data: bytes) -> None:
        await self.websocket.send_bytes(data)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        with contextlib.suppress(Exception):  # already closed by the peer
            await self.websocket.close(code, reason)

    def abort(self) -> None:
        """Drop the connection now, unsent data and all (a peer that stopped reading would
        keep a closed socket open forever). Without the server's abort extension (another
        ASGI server): closed as well as it can be, by the session ending."""
        extension = self.websocket.scope.get("extensions", {}).get(ABORT_EXTENSION)
        if extension is not None:
            extension["abort"]()

"""Observes one service's real sessions: every message each way, as the transport carried it.

It wraps the production connector (no stand-in): the real server answers; the tap only
keeps a copy, so tests can compare what Pipecat produced with what the server said.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pipecat_kokoro.connection import Connection, Connector
from pipecat_kokoro.protocol import Audio, Control, ServerMessage


class TappedConnection:
    def __init__(self, inner: Connection, tap: SessionTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, message: dict[str, Any]) -> None:
        self._tap.sent.append(message)
        await self._inner.send(message)

    async def messages(self) -> AsyncIterator[ServerMessage]:
        async for message in self._inner.messages():
            self._tap.received.append(message)
            yield message

    async def close(self) -> None:
        await self._inner.close()


class SessionTap:
    def __init__(self, inner: Connector) -> None:
        self.inner = inner
        self.description = inner.description
        self.sent: list[dict[str, Any]] = []
        self.received: list[ServerMessage] = []
        self.connections = 0

    async def connect(self) -> Connection:
        connection = await self.inner.connect()
        self.connections += 1
        return TappedConnection(connection, self)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def controls(self, kind: str) -> list[Control]:
        return [m for m in self.received if isinstance(m, Control) and m.type == kind]

    def sent_types(self) -> list[str]:
        return [m["type"] for m in self.sent]

    def reported_audio_bytes(self) -> int:
        return sum(int(c.get("audio_bytes")) for c in self.controls("synthesis_complete"))

    def received_audio_bytes(self) -> int:
        return sum(len(m.data) for m in self.received if isinstance(m, Audio))

"""Observes one service's real sessions: every message each way, as the transport carried it.

It wraps the production transport (kokoro_stream's, no stand-in): the real server answers;
the tap only keeps a copy, so tests can compare what a framework produced with what the
server said. Used by the Pipecat and the LiveKit tests alike.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from kokoro_stream import (
    TtsAudio,
    TtsControl,
    TtsEvent,
    TtsSession,
    TtsTransport,
    TtsWords,
    start_message,
)


class TappedSession:
    def __init__(self, inner: TtsSession, tap: SessionTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, message: dict[str, Any]) -> None:
        self._tap.sent.append(message)
        await self._inner.send(message)

    async def send_text(self, text: str) -> None:
        await self.send({"type": "text", "text": text})

    async def flush(self) -> None:
        await self.send({"type": "flush"})

    async def cancel(self) -> None:
        await self.send({"type": "cancel"})

    async def close(self) -> None:
        await self.send({"type": "close"})

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        async for event in self._inner.events():
            self._tap.received.append(event)
            yield event


class SessionTap:
    def __init__(self, inner: TtsTransport) -> None:
        self.inner = inner
        self.name = inner.name
        self.sent: list[dict[str, Any]] = []
        self.received: list[TtsEvent] = []
        self.connections = 0

    async def open_session(
        self,
        voice: str | None,
        audio_format: str,
        sample_rate: int,
        word_timestamps: bool = False,
        speed: float | None = None,
    ) -> TappedSession:
        session = await self.inner.open_session(
            voice, audio_format, sample_rate, word_timestamps, speed
        )
        self.connections += 1
        # What open_session sent first (its `start`), as the tap cannot see inside it.
        self.sent.append(start_message(voice, audio_format, sample_rate, word_timestamps, speed))
        return TappedSession(session, self)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def controls(self, kind: str) -> list[TtsControl]:
        return [m for m in self.received if isinstance(m, TtsControl) and m.type == kind]

    def words(self) -> list[TtsWords]:
        return [m for m in self.received if isinstance(m, TtsWords)]

    def sent_types(self) -> list[str]:
        return [m["type"] for m in self.sent]

    def reported_audio_bytes(self) -> int:
        return sum(int(c.get("audio_bytes")) for c in self.controls("synthesis_complete"))

    def received_audio_bytes(self) -> int:
        return sum(len(m.data) for m in self.received if isinstance(m, TtsAudio))

"""Observes one service's real sessions: every message each way, as the transport carried it.

It wraps the production transport (kokoro_stream's, no stand-in): the real server answers;
the tap only keeps a copy, so tests can compare what a framework produced with what the
server said. Used by the Pipecat and the LiveKit tests alike, as is `server_audio`: what the
server says for a text in a session with no framework, to compare a framework's audio with.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from kokoro_stream import ProtocolMessages, TtsSession, TtsTransport, VoiceList
from kokoro_stream import events as kokoro_events


class TappedSession(ProtocolMessages):
    """kokoro_stream's own message builders (send_text, flush, ...) over the inner session."""

    def __init__(self, inner: TtsSession, tap: SessionTap) -> None:
        self._inner = inner
        self._tap = tap

    async def _send(self, message: dict[str, Any]) -> None:
        self._tap.sent.append(message)
        await self._inner.send(message)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def events(self) -> AsyncGenerator[kokoro_events.TtsEvent, None]:
        async for event in self._inner.events():
            self._tap.received.append(event)
            yield event


class SessionTap:
    def __init__(self, inner: TtsTransport) -> None:
        self.inner = inner
        self.name = inner.name
        self.sent: list[dict[str, Any]] = []
        self.received: list[kokoro_events.TtsEvent] = []
        self.connections = 0

    async def open_session(self, options: kokoro_events.SessionOptions) -> TappedSession:
        session = await self.inner.open_session(options)
        self.connections += 1
        # What open_session sent first (its `start`), as the tap cannot see inside it.
        self.sent.append(options.start_message())
        return TappedSession(session, self)

    async def list_voices(self) -> VoiceList:
        return await self.inner.list_voices()

    async def aclose(self) -> None:
        await self.inner.aclose()

    def events[E](self, kind: type[E]) -> list[E]:
        """The server's events of one kind (`SentenceStart`, `ServerError`, ...), in order."""
        return [m for m in self.received if isinstance(m, kind)]

    def words(self) -> list[kokoro_events.TtsWords]:
        return self.events(kokoro_events.TtsWords)

    def sent_types(self) -> list[str]:
        return [m["type"] for m in self.sent]

    def reported_audio_bytes(self) -> int:
        return sum(c.audio_bytes for c in self.events(kokoro_events.SynthesisComplete))

    def received_audio_bytes(self) -> int:
        return sum(len(m.data) for m in self.events(kokoro_events.TtsAudio))

    def audio(self) -> bytes:
        """Every audio byte the server sent, in order (what a framework should have played)."""
        return b"".join(m.data for m in self.events(kokoro_events.TtsAudio))


async def server_audio(
    transport: TtsTransport, options: kokoro_events.SessionOptions, text: str
) -> bytes:
    """What the server says for `text` in a session of its own (no framework in between):
    the audio of `start` (with `options`), `text` and `close`, up to its `session_end`."""
    session = await transport.open_session(options)
    audio = bytearray()
    try:
        await session.send_text(text)
        await session.close()
        async for event in session.events():
            if isinstance(event, kokoro_events.ServerError | kokoro_events.TtsFailure):
                raise AssertionError(f"the server refused {options}: {event}")
            if isinstance(event, kokoro_events.TtsAudio):
                audio += event.data
            if isinstance(event, kokoro_events.SessionEnd):
                break
    finally:
        await session.aclose()
        await transport.aclose()
    return bytes(audio)

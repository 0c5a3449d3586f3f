"""TTS over a plain WebSocket to a local (or reachable) Kokoro container.

The container sends control messages as text frames and audio as binary frames, so the frame
type tells them apart; no guessing is needed on this transport.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .base import FrameDecoder, ProtocolMessages, TtsEvent, TtsFailure, TtsProtocolError

CONNECT_TIMEOUT_S = 10.0


class WebSocketTtsSession(ProtocolMessages):
    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._decoder = FrameDecoder()
        self._ended = False

    async def _send(self, message: dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message, ensure_ascii=False))

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()

    async def events(self) -> AsyncIterator[TtsEvent]:
        try:
            async for frame in self._ws:
                if isinstance(frame, bytes):
                    yield self._decoder.audio(frame)
                    continue
                try:
                    message = json.loads(frame)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    raise TtsProtocolError(f"text frame is not a JSON object: {frame[:80]!r}")
                event = self._decoder.control(message)
                yield event
                if event.type == "session_end":
                    self._ended = True
                    return
        except ConnectionClosed as exc:
            yield TtsFailure("tts_disconnected", f"TTS WebSocket closed: {exc}")
            return
        except TtsProtocolError as exc:
            yield TtsFailure("tts_protocol", str(exc))
            return
        if not self._ended:
            yield TtsFailure("tts_disconnected", "TTS WebSocket closed before session_end")


class WebSocketTts:
    """Opens one WebSocket per session to `url` (e.g. ws://127.0.0.1:8080/invocations-...)."""

    name = "websocket"

    def __init__(self, url: str) -> None:
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"TTS_URL must be a ws:// or wss:// URL, got {url!r}")
        self.url = url

    async def open_session(
        self, voice: str | None, audio_format: str, sample_rate: int, word_timestamps: bool = False
    ) -> WebSocketTtsSession:
        ws = await connect(
            self.url, open_timeout=CONNECT_TIMEOUT_S, max_size=None, compression=None
        )
        session = WebSocketTtsSession(ws)
        try:
            await session.start(voice, audio_format, sample_rate, word_timestamps)
        except BaseException:
            await session.aclose()
            raise
        return session

    async def aclose(self) -> None:
        return None

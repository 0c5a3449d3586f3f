"""TTS over a plain WebSocket to a local (or reachable) Kokoro container.

The container sends control messages as text frames and audio as binary frames, so the frame
type tells them apart; no guessing is needed on this transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.parse
import urllib.request
from collections.abc import AsyncGenerator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .base import FrameDecoder, ProtocolMessages, TtsConnectionLost
from .events import SessionEnd, SessionOptions, TtsEvent, TtsFailure, TtsProtocolError
from .voices import VoiceList

CONNECT_TIMEOUT_S = 10.0
WEBSOCKET_PATH = "/invocations-bidirectional-stream"


def bidi_url(url: str) -> str:
    """The server's bidirectional route from its base URL (http(s):// or ws(s)://) or from
    the full route URL itself."""
    if url.startswith(("http://", "https://")):
        url = "ws" + url.removeprefix("http")
    if not url.startswith(("ws://", "wss://")):
        raise ValueError(f"a Kokoro server URL must start with ws(s):// or http(s)://: {url!r}")
    url = url.rstrip("/")
    return url if url.endswith(WEBSOCKET_PATH) else url + WEBSOCKET_PATH


def voices_url(url: str) -> str:
    """`http(s)://host:port/voices` for a ws(s):// server URL (any path)."""
    parts = urllib.parse.urlsplit(url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urllib.parse.urlunsplit((scheme, parts.netloc, "/voices", "", ""))


class WebSocketTtsSession(ProtocolMessages):
    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._decoder = FrameDecoder()
        self._ended = False

    async def _send(self, message: dict[str, Any]) -> None:
        try:
            await self._ws.send(json.dumps(message, ensure_ascii=False))
        except ConnectionClosed as exc:
            raise TtsConnectionLost(f"TTS WebSocket closed: {exc}") from exc

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        try:
            async for frame in self._ws:
                if isinstance(frame, bytes):
                    yield self._decoder.audio(frame)
                    continue
                event = self._decoder.text(frame)
                yield event
                if isinstance(event, SessionEnd):
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

    async def open_session(self, options: SessionOptions) -> WebSocketTtsSession:
        ws = await connect(
            self.url, open_timeout=CONNECT_TIMEOUT_S, max_size=None, compression=None
        )
        return await WebSocketTtsSession(ws).started(options)

    async def list_voices(self) -> VoiceList:
        """The server's `GET /voices`, on the host and port of the WebSocket URL."""
        url = voices_url(self.url)

        def fetch() -> Any:
            with urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_S) as response:  # noqa: S310
                return json.load(response)

        return VoiceList.from_json(await asyncio.to_thread(fetch))

    async def aclose(self) -> None:
        return None

"""TEST DOUBLE: a loopback WebSocket server replaying a HAND-BUILT v1.1 server transcript.

Not the Kokoro server. It exists because the real server's `words` (protocol v1.1) are being
added on another branch; the message shapes follow DESIGN.md exactly. On each `flush` it
sends, per scripted sentence: `sentence_start`, `words`, the audio (silence of the sentence's
duration, in two frames) and `synthesis_complete`, then `flushed`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

SAMPLE_RATE = 24000


@dataclass(frozen=True)
class ScriptedSentence:
    text: str
    words: list[tuple[str, int, int]]  # (text, start_ms, end_ms)
    duration_ms: int

    @property
    def audio(self) -> bytes:
        return b"\x00\x00" * (SAMPLE_RATE * self.duration_ms // 1000)


class TranscriptServer:
    def __init__(self, sentences: list[ScriptedSentence]) -> None:
        self.sentences = sentences
        self.received: list[dict[str, Any]] = []
        self.url = ""

    async def _session(self, ws: ServerConnection) -> None:
        index = 0
        async for raw in ws:
            message = json.loads(raw)
            self.received.append(message)
            if message.get("type") != "flush":
                continue
            for sentence in self.sentences:
                audio = sentence.audio
                await ws.send(
                    json.dumps(
                        {
                            "type": "sentence_start",
                            "index": index,
                            "text": sentence.text,
                            "format": "pcm",
                            "sample_rate": SAMPLE_RATE,
                        }
                    )
                )
                words = [{"text": t, "start_ms": s, "end_ms": e} for t, s, e in sentence.words]
                await ws.send(json.dumps({"type": "words", "index": index, "words": words}))
                half = len(audio) // 2 & ~1
                await ws.send(audio[:half])
                await ws.send(audio[half:])
                await ws.send(
                    json.dumps(
                        {
                            "type": "synthesis_complete",
                            "index": index,
                            "audio_bytes": len(audio),
                            "duration_s": sentence.duration_ms / 1000,
                            "synth_ms": 1.0,
                        }
                    )
                )
                index += 1
            await ws.send(json.dumps({"type": "flushed"}))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TranscriptServer]:
        async with serve(self._session, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            self.url = f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"
            yield self

"""A small client for session protocol v1, with timings: used by the demo and the benchmarks.

It speaks to the container's WebSocket route directly (locally, or anything that exposes it),
sends text the way an LLM produces it, and records when each control message and audio frame
arrived.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect

WS_PATH = "/invocations-bidirectional-stream"
_TOKEN = re.compile(r"\s*\S{1,4}|\s+")


def llm_deltas(text: str) -> list[str]:
    """Split text like an LLM tokenizer would: word pieces of up to four characters."""
    return _TOKEN.findall(text)


def ws_url(base_url: str) -> str:
    return base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + WS_PATH


@dataclass
class SentenceAudio:
    index: int
    text: str
    format: str
    sample_rate: int
    audio: bytearray = field(default_factory=bytearray)
    frame_sizes: list[int] = field(default_factory=list)  # bytes of each binary frame
    first_byte_s: float | None = None  # seconds since the first text was sent
    complete: dict[str, Any] = field(default_factory=dict)


@dataclass
class StreamResult:
    sentences: list[SentenceAudio] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    first_audio_s: float | None = None
    total_s: float = 0.0

    @property
    def audio(self) -> bytes:
        return b"".join(bytes(s.audio) for s in self.sentences)

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [c for c in self.controls if c.get("type") == "error"]


async def stream_text(
    base_url: str,
    deltas: Iterable[str],
    *,
    tokens_per_s: float | None = None,
    start: dict[str, Any] | None = None,
    timeout_s: float = 300.0,
) -> StreamResult:
    """Open a session, send `deltas` (paced at tokens_per_s if given), close, collect audio."""
    result = StreamResult()
    async with connect(ws_url(base_url), max_size=None, open_timeout=10) as ws:
        if start:
            await ws.send(json.dumps({"type": "start", **start}))
        t0 = time.perf_counter()

        async def send_all() -> None:
            interval = 1.0 / tokens_per_s if tokens_per_s else 0.0
            for i, delta in enumerate(deltas):
                if interval:
                    # Pace against the clock, not by sleeping a fixed step (no drift).
                    await asyncio.sleep(max(0.0, t0 + i * interval - time.perf_counter()))
                await ws.send(json.dumps({"type": "text", "text": delta}))
            await ws.send(json.dumps({"type": "close"}))

        async def receive_all() -> None:
            current: SentenceAudio | None = None
            async for frame in ws:
                now = time.perf_counter() - t0
                if isinstance(frame, bytes):
                    if current is None:
                        raise RuntimeError("audio frame before sentence_start")
                    if current.first_byte_s is None:
                        current.first_byte_s = now
                    if result.first_audio_s is None:
                        result.first_audio_s = now
                    current.audio.extend(frame)
                    current.frame_sizes.append(len(frame))
                    continue
                msg = json.loads(frame)
                msg["at_s"] = round(now, 4)
                result.controls.append(msg)
                if msg["type"] == "sentence_start":
                    current = SentenceAudio(
                        msg["index"], msg["text"], msg["format"], msg["sample_rate"]
                    )
                    result.sentences.append(current)
                elif msg["type"] == "synthesis_complete" and current is not None:
                    current.complete = msg
                elif msg["type"] == "session_end":
                    return

        await asyncio.wait_for(asyncio.gather(send_all(), receive_all()), timeout_s)
        result.total_s = time.perf_counter() - t0
    return result


@dataclass
class OneShotResult:
    """POST /invocations: the non-streaming baseline. Audio arrives only when all is done."""

    audio: bytes
    content_type: str
    headers: dict[str, str]
    first_byte_s: float  # seconds from sending the request to the first body byte
    total_s: float


async def synthesize_once(
    base_url: str, text: str, *, timeout_s: float = 300.0, **options: Any
) -> OneShotResult:
    """One-shot synthesis of `text` (options: voice, speed, format, sample_rate)."""
    import httpx  # only this call needs it

    body = {"text": text, **options}
    async with httpx.AsyncClient(timeout=timeout_s) as client:
        t0 = time.perf_counter()
        async with client.stream("POST", f"{base_url}/invocations", json=body) as response:
            first: float | None = None
            chunks = bytearray()
            async for chunk in response.aiter_bytes():
                if first is None and chunk:
                    first = time.perf_counter() - t0
                chunks.extend(chunk)
            total = time.perf_counter() - t0
            if response.status_code != 200:
                raise RuntimeError(
                    f"POST /invocations answered {response.status_code}: {chunks.decode()[:300]}"
                )
    return OneShotResult(
        bytes(chunks),
        response.headers.get("content-type", ""),
        dict(response.headers),
        first if first is not None else total,
        total,
    )

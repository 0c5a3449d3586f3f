"""Test-side helpers: read a session's frames with a timeout and summarize them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection

Frame = dict[str, Any] | bytes


async def send(ws: ClientConnection, obj: dict[str, Any], binary: bool = False) -> None:
    data = json.dumps(obj)
    await ws.send(data.encode() if binary else data)


async def read_until(
    ws: ClientConnection, done: Callable[[Frame], bool], timeout: float = 60.0
) -> list[Frame]:
    """Collect frames (JSON dicts for text frames, bytes for binary) until done(frame)."""
    frames: list[Frame] = []

    async def loop() -> None:
        async for raw in ws:
            frame: Frame = raw if isinstance(raw, bytes) else json.loads(raw)
            frames.append(frame)
            if done(frame):
                return

    await asyncio.wait_for(loop(), timeout)
    return frames


def is_type(kind: str) -> Callable[[Frame], bool]:
    return lambda frame: isinstance(frame, dict) and frame.get("type") == kind


def controls(frames: list[Frame]) -> list[dict[str, Any]]:
    return [f for f in frames if isinstance(f, dict)]


def types(frames: list[Frame]) -> list[str]:
    return [f["type"] if isinstance(f, dict) else "audio" for f in frames]


def audio_by_sentence(frames: list[Frame], cut_by_cancel: bool = False) -> dict[int, bytes]:
    """Binary frames grouped by the sentence_start that precedes them. With cut_by_cancel a
    `cancelled` ends the sentence it cut short (one that gets no synthesis_complete)."""
    out: dict[int, bytearray] = {}
    current: int | None = None
    for frame in frames:
        if isinstance(frame, bytes):
            assert current is not None, "audio before any sentence_start"
            out[current].extend(frame)
        elif frame["type"] == "sentence_start":
            current = frame["index"]
            out[current] = bytearray()
        elif frame["type"] == "synthesis_complete":
            assert current is not None, "synthesis_complete before any sentence_start"
            assert frame["index"] == current
            assert frame["audio_bytes"] == len(out[current])
            current = None
        elif cut_by_cancel and frame["type"] == "cancelled":
            current = None
    return {k: bytes(v) for k, v in out.items()}


def errors(frames: list[Frame]) -> list[dict[str, Any]]:
    return [f for f in controls(frames) if f["type"] == "error"]

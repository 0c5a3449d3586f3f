"""The one reader of the voice agent's events, whatever carries them: SSE over HTTP
(POST /invocations, read with httpx-sse), the /ws WebSocket (each `audio` header followed by
its binary frame), or a deployed runtime's StreamingBody (network chunks, reassembled by
devkit.sse). Each yields `(event, audio)`: the event as a dict and, for `audio`, its bytes.

The caller (devkit.agent_client), the conversation CLI (devkit.talk), the benchmarks and the
tests read the agent through these.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx
from httpx_sse import aconnect_sse
from websockets.asyncio.client import ClientConnection

from devkit.sse import iter_sse_data

Event = tuple[dict[str, Any], bytes | None]  # an agent event and, for `audio`, its bytes


def is_terminal(event: dict[str, Any]) -> bool:
    """The last event of an answer: `done`, `interrupted` (/ws) or a fatal `error`."""
    return event.get("type") in ("done", "interrupted") or (
        event.get("type") == "error" and bool(event.get("fatal", True))
    )


def sse_audio(event: dict[str, Any]) -> bytes:
    """An SSE `audio` event's bytes (base64 in its `data`; /ws sends them as a frame)."""
    return base64.b64decode(event["data"])


def sse_event(data: str) -> Event:
    """One SSE event's data: the event and, for `audio`, its bytes."""
    event = json.loads(data)
    if not isinstance(event, dict):
        raise ValueError(f"agent event is not a JSON object: {data[:80]!r}")
    return event, sse_audio(event) if event.get("type") == "audio" else None


async def sse_events(
    client: httpx.AsyncClient, base_url: str, payload: dict[str, Any]
) -> AsyncIterator[Event]:
    """POST /invocations and yield its events (httpx-sse reassembles them across chunks)."""
    url = f"{base_url.rstrip('/')}/invocations"
    async with aconnect_sse(client, "POST", url, json=payload) as source:
        source.response.raise_for_status()
        async for sse in source.aiter_sse():
            yield sse_event(sse.data)


async def ws_events(ws: ClientConnection) -> AsyncIterator[Event]:
    """Events of a /ws connection; each `audio` header's binary frame comes with it."""
    async for frame in ws:
        if isinstance(frame, bytes):
            raise ValueError("binary frame without a preceding audio header")
        event = json.loads(frame)
        if event.get("type") != "audio":
            yield event, None
            continue
        audio = await ws.recv()
        if not isinstance(audio, bytes) or len(audio) != event.get("bytes"):
            raise ValueError(f"audio header {event} not followed by its binary frame")
        yield event, audio


def runtime_events(chunks: Iterable[bytes]) -> Iterator[Event]:
    """Events of a deployed runtime's SSE body, from its network chunks."""
    for data in iter_sse_data(chunks):
        yield sse_event(data)


def ws_url(base_url: str) -> str:
    """The agent's /ws URL from its HTTP base URL."""
    base = base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    return f"{base.rstrip('/')}/ws"

"""One caller's WebSocket connection to /ws: a small state machine around invocations.

Each JSON message is one invocation, answered in order. While one runs, the caller may send
`{"type": "cancel"}` (barge-in: the run stops and `error cancelled` follows), close the socket
(the run is cancelled), or send anything else (answered `busy`). A message that arrives once
the answer's last event went out is the next invocation, not `busy`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable
from enum import StrEnum
from typing import Any

from starlette.types import Message  # an ASGI websocket.receive message
from starlette.websockets import WebSocket

from .events import AgentEvent, AudioEvent, EventType, error_event, to_ws_frames
from .payload import Invocation, PayloadError, parse_invocation

Run = Callable[[Invocation], AsyncGenerator[AgentEvent, None]]


class CallerAction(StrEnum):
    """What the caller did while an invocation ran."""

    NOTHING = "nothing"  # the run ended on its own
    NEXT = "next"  # sent the next request as the answer completed
    CANCEL = "cancel"
    DISCONNECT = "disconnect"


async def serve_connection(websocket: WebSocket, run: Run, default_voice: str | None) -> None:
    """Serve one accepted connection until the caller disconnects."""
    carried: Message | None = None  # a request that arrived as the last run ended
    while True:
        if carried is not None:
            message, carried = carried, None
        else:
            try:
                message = await websocket.receive()
            except RuntimeError:  # already disconnected
                return
        if message["type"] == "websocket.disconnect":
            return
        try:
            request = decode_message(message)
            if _is_cancel(request):
                continue  # nothing is running: a late cancel (sent as a run ended) is a no-op
            inv = parse_invocation(request, default_voice)
        except PayloadError as exc:
            await websocket.send_text(json.dumps(error_event(exc.code, str(exc))))
            continue
        action, carried = await _run_one(websocket, run(inv))
        if action == CallerAction.DISCONNECT:
            return


async def _run_one(
    websocket: WebSocket, events: AsyncGenerator[AgentEvent, None]
) -> tuple[CallerAction, Message | None]:
    """Relay one run's events while watching the caller; what the caller did, and the next
    request if it sent one."""
    delivered = asyncio.Event()  # the run's last event (done / fatal error) went out
    relay = asyncio.create_task(_relay(websocket, events, delivered))
    watcher = asyncio.create_task(_watch_caller(websocket, delivered))
    try:
        await asyncio.wait({relay, watcher}, return_when=asyncio.FIRST_COMPLETED)
        if _action(watcher)[0] == CallerAction.NEXT:
            await asyncio.wait({relay})  # only its clean-up is left: let it finish
    finally:
        for task in (relay, watcher):
            task.cancel()
        await asyncio.gather(relay, watcher, return_exceptions=True)
    action, carried = _action(watcher)
    if action == CallerAction.CANCEL and not delivered.is_set():
        await websocket.send_text(
            json.dumps(error_event("cancelled", "invocation cancelled by the caller"))
        )
    # Else the run finished (a cancel that crossed its last event has nothing to stop, and a
    # `cancelled` after `done` would contradict it) or `carried` is the next request.
    return action, carried


def _action(
    watcher: asyncio.Task[tuple[CallerAction, Message | None]],
) -> tuple[CallerAction, Message | None]:
    if not watcher.done() or watcher.cancelled():
        return CallerAction.NOTHING, None
    if watcher.exception() is not None:
        return CallerAction.DISCONNECT, None
    return watcher.result()


def _is_last(event: AgentEvent) -> bool:
    """`done`, or a fatal `error`: nothing follows it in this answer."""
    if isinstance(event, AudioEvent):
        return False
    return event["type"] == EventType.DONE or (
        event["type"] == EventType.ERROR and bool(event["fatal"])
    )


def _is_cancel(request: Any) -> bool:
    return isinstance(request, dict) and request.get("type") == "cancel"


def decode_message(message: Message) -> Any:
    """The JSON value of one WebSocket message (text, or UTF-8 bytes), else PayloadError."""
    try:
        if message.get("text") is not None:
            text = str(message["text"])
        else:
            text = bytes(message.get("bytes") or b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"message is not UTF-8: {exc}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise PayloadError(f"message is not JSON: {exc}") from None
    except RecursionError:  # json raises this, not ValueError, for deep nesting
        raise PayloadError("message is nested too deeply to decode") from None


async def _relay(
    websocket: WebSocket, events: AsyncGenerator[AgentEvent, None], delivered: asyncio.Event
) -> None:
    try:
        async for event in events:
            for frame in to_ws_frames(event):
                if isinstance(frame, bytes):
                    await websocket.send_bytes(frame)
                else:
                    await websocket.send_text(frame)
            if _is_last(event):
                delivered.set()
    finally:
        await events.aclose()


async def _watch_caller(
    websocket: WebSocket, delivered: asyncio.Event
) -> tuple[CallerAction, Message | None]:
    """DISCONNECT or CANCEL, or NEXT with a message that came after the answer was complete;
    other messages during a run are answered `busy`."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return CallerAction.DISCONNECT, None
        if delivered.is_set():
            return CallerAction.NEXT, message  # the next request may come as `done` arrives
        try:
            request = decode_message(message)
        except PayloadError:
            request = None
        if _is_cancel(request):
            return CallerAction.CANCEL, None
        await websocket.send_text(
            json.dumps(error_event("busy", "one invocation at a time per connection", fatal=False))
        )

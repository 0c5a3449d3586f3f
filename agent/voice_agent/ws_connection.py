"""One caller's WebSocket connection to /ws: a small state machine around invocations.

Each JSON message is one invocation, answered in order, in the connection's own conversation
unless its `session_id` names another. While one runs, the caller may send
`{"type": "interrupt", "played_ms"}` (barge-in: the run stops at once, the answer is
remembered as far as `played_ms`, and an `interrupted` event saying what was kept is the
answer's last), `{"type": "cancel"}` (the run stops; `error cancelled` follows), close the
socket (the run is cancelled), or send anything else (answered `busy`). Between runs,
`{"list": "voices"}` is answered with one `voices` event (voice_list.py). A message that arrives
once the answer's last event went out is the next request, not `busy`; an interrupt then cuts
the answer that just ended.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from enum import StrEnum
from typing import Any

from starlette.types import Message  # an ASGI websocket.receive message
from starlette.websockets import WebSocket

from .conversation import ConversationKey, ConversationStore
from .events import (
    AgentEvent,
    error_event,
    interrupted_event,
    is_last,
    to_ws_frames,
)
from .payload import (
    Invocation,
    PayloadError,
    bounded_int,
    parse_invocation,
    played_ms,
    wants_voice_list,
)
from .turns import Interruption, cut_previous

log = logging.getLogger("voice_agent.ws")

Run = Callable[
    [Invocation, ConversationKey | None, Interruption | None], AsyncGenerator[AgentEvent, None]
]
Voices = Callable[[], Awaitable[dict[str, Any]]]  # the `voices` (or `error`) event
ANSWERED = object()  # a message that runs nothing was dealt with


class CallerAction(StrEnum):
    """What the caller did while an invocation ran."""

    NOTHING = "nothing"  # the run ended on its own
    NEXT = "next"  # sent the next request as the answer completed
    CANCEL = "cancel"
    INTERRUPT = "interrupt"
    DISCONNECT = "disconnect"


async def serve_connection(
    websocket: WebSocket,
    run: Run,
    conversations: ConversationStore,
    runtime_session: str | None,
    default_voice: str | None,
    voices: Voices,
) -> None:
    """Serve one accepted connection until the caller disconnects."""
    own: ConversationKey = (runtime_session, f"ws-{uuid.uuid4().hex}")
    bad = BadMessages(own[1])
    last = own  # the conversation of the latest answer: where an idle interrupt applies
    carried: Message | None = None  # a request that arrived as the last run ended
    try:
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
                request = await _next_request(websocket, message, conversations, last, voices)
                if request is ANSWERED:
                    continue
                inv = parse_invocation(request, default_voice)
            except PayloadError as exc:
                bad.log(exc)
                await websocket.send_text(json.dumps(error_event(exc.code, str(exc))))
                continue
            last = (runtime_session, inv.session_id) if inv.session_id else own
            interruption = Interruption()
            action, carried = await _run_one(websocket, run(inv, last, interruption), interruption)
            if action == CallerAction.DISCONNECT:
                return
    finally:
        conversations.drop(own)  # nobody can name it again
        if bad.count > LOGGED_BAD_MESSAGES:
            log.warning(
                "bad messages", extra={"fields": {"connection": own[1], "count": bad.count}}
            )


async def _next_request(
    websocket: WebSocket,
    message: Message,
    conversations: ConversationStore,
    last: ConversationKey,
    voices: Voices,
) -> Any:
    """The request to run from one message, or ANSWERED once a message that runs nothing (a
    late cancel, an idle interrupt, the voice list) has been dealt with; PayloadError if bad."""
    request = decode_message(message)
    kind = _control_type(request)
    if kind == CallerAction.CANCEL:
        return ANSWERED  # nothing runs: a late cancel (sent as a run ended) is a no-op
    if kind == CallerAction.INTERRUPT:
        await _interrupt_idle(websocket, conversations, last, request)
        return ANSWERED
    if wants_voice_list(request):
        await websocket.send_text(json.dumps(await voices(), ensure_ascii=False))
        return ANSWERED
    return request


LOGGED_BAD_MESSAGES = 5


class BadMessages:
    """One log line for each of a connection's first bad messages (no traceback: the caller
    was told), then only their count, once the connection ends."""

    def __init__(self, connection: str) -> None:
        self.connection = connection
        self.count = 0

    def log(self, exc: PayloadError) -> None:
        self.count += 1
        if self.count <= LOGGED_BAD_MESSAGES:
            fields = {"connection": self.connection, "code": exc.code, "reason": str(exc)[:200]}
            log.warning("bad message", extra={"fields": fields})


async def _interrupt_idle(
    websocket: WebSocket, conversations: ConversationStore, key: ConversationKey, request: Any
) -> None:
    """An interrupt with nothing running: it came after the answer's last event, and cuts
    that answer."""
    ms = _played_ms(request)
    turn = await cut_previous(conversations, key, ms)
    if turn is None:
        raise PayloadError("nothing to interrupt: no answer on this connection yet")
    await websocket.send_text(json.dumps(interrupted_event(ms, turn.answer)))


async def _run_one(
    websocket: WebSocket, events: AsyncGenerator[AgentEvent, None], interruption: Interruption
) -> tuple[CallerAction, Message | None]:
    """Relay one run's events while watching the caller; what the caller did, and the next
    request if it sent one."""
    delivered = asyncio.Event()  # the run's last event (done / fatal error) went out
    sending = asyncio.Lock()  # held while one event's frames go out: never cut in two
    relay = asyncio.create_task(_relay(websocket, events, delivered, sending))
    watcher = asyncio.create_task(_watch_caller(websocket, delivered, sending, interruption))
    try:
        await asyncio.wait({relay, watcher}, return_when=asyncio.FIRST_COMPLETED)
        if _action(watcher)[0] == CallerAction.NEXT:
            await asyncio.wait({relay})  # only its clean-up is left: let it finish
    finally:
        async with sending:  # an `audio` header is never left without its binary frame
            relay.cancel()
        watcher.cancel()
        await asyncio.gather(relay, watcher, return_exceptions=True)
    action, carried = _action(watcher)
    if not delivered.is_set():
        if action == CallerAction.CANCEL:
            await websocket.send_text(
                json.dumps(error_event("cancelled", "invocation cancelled by the caller"))
            )
        elif action == CallerAction.INTERRUPT:
            # No turn: the answer was stopped while it waited for its conversation.
            heard = interruption.turn.answer if interruption.turn else ""
            event = interrupted_event(interruption.played_ms, heard)
            await websocket.send_text(json.dumps(event))
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


def _control_type(request: Any) -> CallerAction | None:
    """CANCEL or INTERRUPT for those control messages; None for anything else (a request)."""
    if isinstance(request, dict):
        kind = request.get("type")
        if kind == "cancel":
            return CallerAction.CANCEL
        if kind == "interrupt":
            return CallerAction.INTERRUPT
    return None


def _played_ms(request: dict[str, Any]) -> float:
    unknown = sorted(set(request) - {"type", "played_ms"})
    if unknown or "played_ms" not in request:
        raise PayloadError('an interrupt is {"type": "interrupt", "played_ms": <ms>}')
    return played_ms(request["played_ms"])


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
        return json.loads(text, parse_int=bounded_int)
    except ValueError as exc:
        raise PayloadError(f"message is not JSON: {exc}") from None
    except RecursionError:  # json raises this, not ValueError, for deep nesting
        raise PayloadError("message is nested too deeply to decode") from None


async def _relay(
    websocket: WebSocket,
    events: AsyncGenerator[AgentEvent, None],
    delivered: asyncio.Event,
    sending: asyncio.Lock,
) -> None:
    try:
        async for event in events:
            async with sending:
                for frame in to_ws_frames(event):
                    if isinstance(frame, bytes):
                        await websocket.send_bytes(frame)
                    else:
                        await websocket.send_text(frame)
            if is_last(event):
                delivered.set()
    finally:
        await events.aclose()


async def _watch_caller(
    websocket: WebSocket,
    delivered: asyncio.Event,
    sending: asyncio.Lock,
    interruption: Interruption,
) -> tuple[CallerAction, Message | None]:
    """DISCONNECT, CANCEL or INTERRUPT, or NEXT with a message that came after the answer was
    complete; a bad interrupt is answered with a non-fatal error, other messages `busy`."""
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
        kind = _control_type(request)
        if kind == CallerAction.CANCEL:
            return CallerAction.CANCEL, None
        if kind == CallerAction.INTERRUPT:
            try:
                interruption.played_ms = _played_ms(request)
                return CallerAction.INTERRUPT, None
            except PayloadError as exc:
                reply = error_event(exc.code, str(exc), fatal=False)
        else:
            reply = error_event("busy", "one invocation at a time per connection", fatal=False)
        async with sending:  # not between an `audio` header and its binary frame
            await websocket.send_text(json.dumps(reply))

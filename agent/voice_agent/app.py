"""The AgentCore runtime app: POST /invocations (SSE), GET /ping, WebSocket /ws.

The entrypoint returns a Starlette StreamingResponse of SSE bytes, which the SDK passes
through unchanged. This keeps the pipeline on the server's event loop (the one /ws uses too,
so one long-lived TTS client serves both) and lets Starlette cancel it the moment the caller
disconnects; the SDK's async-generator bridge would only notice at the next event.
/ping is the SDK's: HealthyBusy while any invocation is registered as an async task.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.websockets import WebSocket

from .events import AgentEvent, AudioEvent, error_event, to_sse, to_ws_frames
from .llm import TextSource, text_source_from_env
from .payload import Invocation, PayloadError, parse_invocation
from .pipeline import VoicePipeline
from .settings import AgentSettings
from .tts.base import TtsTransport

log = logging.getLogger("voice_agent")


def create_app(
    settings: AgentSettings | None = None,
    text_source: TextSource | None = None,
    tts: TtsTransport | None = None,
) -> BedrockAgentCoreApp:
    settings = settings or AgentSettings.from_env()
    pipeline = VoicePipeline(
        text_source or text_source_from_env(region=settings.region),
        tts or settings.tts_transport(),
        sample_rate=settings.sample_rate,
        tts_idle_timeout_s=settings.tts_idle_timeout_s,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        yield
        await pipeline.tts.aclose()

    app = BedrockAgentCoreApp(lifespan=lifespan)
    app.state.pipeline = pipeline
    # The SDK decodes the body itself and answers bad JSON with HTTP 400, but a deeply nested
    # body raises RecursionError there, which would be a 500: answer it like bad JSON.
    app.add_exception_handler(RecursionError, _too_deep)

    async def tracked(inv: Invocation) -> AsyncIterator[AgentEvent]:
        # Registered as an async task so /ping answers HealthyBusy while audio is streaming.
        task_id = app.add_async_task("voice_invocation", {"mode": inv.mode})
        try:
            async for event in pipeline.run(inv):
                yield event
        finally:
            app.complete_async_task(task_id)

    async def sse_body(payload: Any) -> AsyncIterator[bytes]:
        try:
            inv = parse_invocation(payload, settings.default_voice)
        except PayloadError as exc:
            yield to_sse(error_event(exc.code, str(exc)))
            return
        events = tracked(inv)
        try:
            async for event in events:
                yield to_sse(event)
        finally:
            await events.aclose()

    @app.entrypoint
    def invoke(payload: Any) -> StreamingResponse:
        return StreamingResponse(
            sse_body(payload),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.websocket
    async def ws_handler(websocket: WebSocket, context: Any) -> None:
        await websocket.accept()
        await _serve_websocket(websocket, tracked, settings)

    return app


async def _serve_websocket(websocket: WebSocket, tracked: Any, settings: AgentSettings) -> None:
    """One invocation per JSON message, answered in order. During a run, `{"type": "cancel"}`
    stops it (barge-in) and closing the socket cancels it."""
    carried: dict[str, Any] | None = None  # a message that arrived as the last run ended
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
            inv = parse_invocation(request, settings.default_voice)
        except PayloadError as exc:
            await websocket.send_text(json.dumps(error_event(exc.code, str(exc))))
            continue
        delivered = asyncio.Event()  # the run's last event (done / fatal error) went out
        run = asyncio.create_task(_relay(websocket, tracked(inv), delivered))
        watcher = asyncio.create_task(_watch_caller(websocket, delivered))
        try:
            await asyncio.wait({run, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if _outcome(watcher)[0] == "next":
                await asyncio.wait({run})  # only its clean-up is left: let it finish
        finally:
            for task in (run, watcher):
                task.cancel()
            await asyncio.gather(run, watcher, return_exceptions=True)
        outcome, carried = _outcome(watcher)
        if outcome == "disconnect":
            return
        if outcome == "cancel" and not delivered.is_set():
            await websocket.send_text(
                json.dumps(error_event("cancelled", "invocation cancelled by the caller"))
            )
        # Else the run finished (a cancel that crossed its last event has nothing to stop,
        # and a `cancelled` after `done` would contradict it) or `carried` is the next request.


def _outcome(watcher: asyncio.Task[Any]) -> tuple[str, dict[str, Any] | None]:
    """What the caller did during the run: ('running', None) while nothing happened."""
    if not watcher.done() or watcher.cancelled():
        return "running", None
    if watcher.exception() is not None:
        return "disconnect", None
    return watcher.result()


def _is_last(event: AgentEvent) -> bool:
    """`done`, or a fatal `error`: nothing follows it in this answer."""
    if isinstance(event, AudioEvent):
        return False
    return event["type"] == "done" or (event["type"] == "error" and event["fatal"])


def _is_cancel(request: Any) -> bool:
    return isinstance(request, dict) and request.get("type") == "cancel"


async def _too_deep(_request: Request, _exc: Exception) -> JSONResponse:
    return JSONResponse(
        {"error": "Invalid JSON", "details": "nested too deeply to decode"}, status_code=400
    )


def decode_message(message: dict[str, Any]) -> Any:
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
    websocket: WebSocket, events: AsyncIterator[AgentEvent], delivered: asyncio.Event
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
        await events.aclose()  # type: ignore[attr-defined]


async def _watch_caller(
    websocket: WebSocket, delivered: asyncio.Event
) -> tuple[str, dict[str, Any] | None]:
    """('disconnect' | 'cancel', None), or ('next', message) for a message that came after
    the answer was complete; other messages during a run are answered `busy`."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return "disconnect", None
        if delivered.is_set():
            return "next", message  # the caller may send its next request as `done` arrives
        try:
            request = decode_message(message)
        except PayloadError:
            request = None
        if _is_cancel(request):
            return "cancel", None
        await websocket.send_text(
            json.dumps(error_event("busy", "one invocation at a time per connection", fatal=False))
        )

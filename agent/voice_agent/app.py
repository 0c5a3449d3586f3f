"""The AgentCore runtime app: POST /invocations (SSE), GET /ping, WebSocket /ws.

The entrypoint returns a Starlette StreamingResponse of SSE bytes, which the SDK passes
through unchanged. This keeps the pipeline on the server's event loop (the one /ws uses too,
so one long-lived TTS client serves both) and lets Starlette cancel it the moment the caller
disconnects; the SDK's async-generator bridge would only notice at the next event.
/ping is the SDK's: HealthyBusy while any invocation is registered as an async task.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.websockets import WebSocket

from .events import AgentEvent, error_event, to_sse
from .llm import TextSource
from .payload import Invocation, PayloadError, parse_invocation
from .pipeline import VoicePipeline
from .settings import AgentSettings
from .tts.base import TtsTransport
from .ws_connection import serve_connection

log = logging.getLogger("voice_agent")


def create_app(
    settings: AgentSettings | None = None,
    text_source: TextSource | None = None,
    tts: TtsTransport | None = None,
) -> BedrockAgentCoreApp:
    settings = settings or AgentSettings.from_env()
    pipeline = VoicePipeline(
        text_source or settings.text_source(),
        tts or settings.tts_transport(),
        sample_rate=settings.sample_rate,
        tts_idle_timeout_s=settings.tts_idle_timeout_s,
        llm_idle_timeout_s=settings.llm_idle_timeout_s,
        connect_timeout_s=settings.tts_connect_timeout_s,
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

    async def tracked(inv: Invocation) -> AsyncGenerator[AgentEvent, None]:
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
        await serve_connection(websocket, tracked, settings.default_voice)

    return app


async def _too_deep(_request: Request, _exc: Exception) -> JSONResponse:
    return JSONResponse(
        {"error": "Invalid JSON", "details": "nested too deeply to decode"}, status_code=400
    )

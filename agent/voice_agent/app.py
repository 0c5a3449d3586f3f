"""The AgentCore runtime app: POST /invocations (SSE), GET /ping, WebSocket /ws.

The entrypoint returns a Starlette StreamingResponse of SSE bytes, which the SDK passes
through unchanged. This keeps the pipeline on the server's event loop (the one /ws uses too,
so one long-lived TTS client serves both) and lets Starlette cancel it the moment the caller
disconnects; the SDK's async-generator bridge would only notice at the next event.
/ping is the SDK's: HealthyBusy while any invocation is registered as an async task.
Every route sits behind `origins.OriginGate`: browsers only from loopback pages (or the
origins VOICE_AGENT_ALLOWED_ORIGINS names); clients without an Origin and AgentCore as before.

Conversations (conversation.py) are keyed by the runtime session id the SDK reads from
AgentCore's session header (`context.session_id`) and the payload's `session_id`; an SSE
request with neither is a one-off answer that nothing remembers.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp
from bedrock_agentcore.runtime.context import RequestContext
from kokoro_stream.base import TtsTransport
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.websockets import WebSocket

from .conversation import ConversationKey
from .events import AgentEvent, error_event, to_sse
from .llm import TextSource
from .origins import OriginGate
from .payload import Invocation, PayloadError, parse_invocation
from .pipeline import VoicePipeline
from .settings import VOICE_PAUSED_MESSAGE, AgentSettings
from .turns import Interruption, answer_turn
from .wiring import tts_transport
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
        tts or tts_transport(settings),
        sample_rate=settings.sample_rate,
        tts_idle_timeout_s=settings.tts_idle_timeout_s,
        llm_idle_timeout_s=settings.llm_idle_timeout_s,
        connect_timeout_s=settings.tts_connect_timeout_s,
        busy_wait_s=settings.tts_busy_wait_s,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        yield
        await pipeline.drain()
        await pipeline.tts.aclose()

    # Every route behind the Origin allowlist: a web page elsewhere must not drive the agent.
    gate = Middleware(OriginGate, policy=settings.origins)
    app = BedrockAgentCoreApp(lifespan=lifespan, middleware=[gate])
    app.state.pipeline = pipeline
    app.state.conversations = conversations = settings.conversations()
    # The SDK decodes the body itself and answers bad JSON with HTTP 400, but a deeply nested
    # body raises RecursionError there, which would be a 500: answer it like bad JSON.
    app.add_exception_handler(RecursionError, _too_deep)
    # Likewise an integer past Python's conversion limit (4,300 digits) raises ValueError there.
    app.add_exception_handler(ValueError, _number_too_long)

    async def tracked(
        inv: Invocation, key: ConversationKey | None, interruption: Interruption | None = None
    ) -> AsyncGenerator[AgentEvent, None]:
        if settings.voice_paused:
            # No model call (no tokens billed) and no TTS session: there is no endpoint.
            yield error_event("voice_paused", VOICE_PAUSED_MESSAGE)
            return
        # Registered as an async task so /ping answers HealthyBusy while audio is streaming.
        task_id = app.add_async_task("voice_invocation", {"mode": inv.mode})
        try:
            async with conversations.using(key) as conversation:
                events = answer_turn(pipeline, conversation, inv, interruption)
                try:
                    async for event in events:
                        yield event
                finally:
                    await events.aclose()
        finally:
            app.complete_async_task(task_id)

    async def sse_body(payload: Any, runtime_session: str | None) -> AsyncIterator[bytes]:
        try:
            inv = parse_invocation(payload, settings.default_voice)
        except PayloadError as exc:
            yield to_sse(error_event(exc.code, str(exc)))
            return
        events = tracked(inv, sse_conversation(runtime_session, inv.session_id))
        try:
            async for event in events:
                yield to_sse(event)
        finally:
            await events.aclose()

    @app.entrypoint
    def invoke(payload: Any, context: RequestContext) -> StreamingResponse:
        return StreamingResponse(
            sse_body(payload, context.session_id or None),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.websocket
    async def ws_handler(websocket: WebSocket, context: RequestContext) -> None:
        await websocket.accept()
        await serve_connection(
            websocket, tracked, conversations, context.session_id or None, settings.default_voice
        )

    return app


def sse_conversation(runtime_session: str | None, session_id: str | None) -> ConversationKey | None:
    """Over SSE (one request per turn) a conversation is named by the runtime session, the
    payload, or both; with neither the answer is a one-off."""
    if runtime_session is None and session_id is None:
        return None
    return (runtime_session, session_id or "")


async def _too_deep(_request: Request, _exc: Exception) -> JSONResponse:
    return JSONResponse(
        {"error": "Invalid JSON", "details": "nested too deeply to decode"}, status_code=400
    )


async def _number_too_long(_request: Request, exc: Exception) -> JSONResponse:
    if "integer string conversion" not in str(exc):
        raise exc  # not the decoder's: a server error as before
    return JSONResponse(
        {
            "error": "Invalid JSON",
            "details": f"a number has more than {sys.get_int_max_str_digits()} digits; "
            "no field takes one",
        },
        status_code=400,
    )

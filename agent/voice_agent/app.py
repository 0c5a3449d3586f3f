"""The AgentCore runtime app: POST /invocations (SSE), GET /ping, WebSocket /ws.

What the routes do is routes.py; this module builds the app around them.
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
from collections.abc import AsyncIterator
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp
from kokoro_stream.base import TtsTransport
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from .llm import TextSource
from .origins import OriginGate
from .pipeline import VoicePipeline
from .routes import AgentRoutes
from .settings import AgentSettings
from .wiring import tts_transport

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
    routes = AgentRoutes(app, settings, pipeline, conversations)
    app.entrypoint(routes.invoke)
    app.websocket(routes.ws_handler)
    return app


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

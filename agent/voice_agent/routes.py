"""What the agent's routes do: POST /invocations (SSE, or JSON for the voice list) and /ws.

The entrypoint returns a Starlette response, which the SDK passes through unchanged. This
keeps the pipeline on the server's event loop (the one /ws uses too, so one long-lived TTS
client serves both) and lets Starlette cancel it the moment the caller disconnects; the SDK's
async-generator bridge would only notice at the next event. The SDK runs a sync entrypoint in
a worker thread, so whatever needs the TTS is computed when the response is sent.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any

from bedrock_agentcore.runtime import BedrockAgentCoreApp
from bedrock_agentcore.runtime.context import RequestContext
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from .conversation import ConversationKey, ConversationStore
from .events import AgentEvent, EventType, error_event, to_sse
from .payload import Invocation, PayloadError, parse_invocation, wants_voice_list
from .pipeline import VoicePipeline
from .settings import VOICE_PAUSED_MESSAGE, AgentSettings
from .turns import Interruption, answer_turn
from .voice_list import voices_event
from .ws_connection import serve_connection

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@dataclass(eq=False)
class AgentRoutes:
    """The handlers of one app: its settings, pipeline and conversations."""

    app: BedrockAgentCoreApp
    settings: AgentSettings
    pipeline: VoicePipeline
    conversations: ConversationStore

    def invoke(self, payload: Any, context: RequestContext) -> Response:
        """POST /invocations: an answer as SSE, or the voice list as JSON."""
        try:
            if wants_voice_list(payload):
                return _DeferredJSON(self.voices)
        except PayloadError as exc:
            return JSONResponse(error_event(exc.code, str(exc)), status_code=400)
        return StreamingResponse(
            self.sse_body(payload, context.session_id or None),
            media_type="text/event-stream",
            headers=SSE_HEADERS,
        )

    async def ws_handler(self, websocket: WebSocket, context: RequestContext) -> None:
        await websocket.accept()
        await serve_connection(
            websocket,
            self.tracked,
            self.conversations,
            context.session_id or None,
            self.settings.default_voice,
            self.voices,
        )

    async def voices(self) -> dict[str, Any]:
        """The `voices` event, or an `error` event (voice_list.py)."""
        return await voices_event(
            self.pipeline.tts,
            self.settings.default_voice,
            self.settings.voice_paused,
            self.settings.tts_connect_timeout_s,
        )

    async def sse_body(self, payload: Any, runtime_session: str | None) -> AsyncIterator[bytes]:
        try:
            inv = parse_invocation(payload, self.settings.default_voice)
        except PayloadError as exc:
            yield to_sse(error_event(exc.code, str(exc)))
            return
        events = self.tracked(inv, sse_conversation(runtime_session, inv.session_id))
        try:
            async for event in events:
                yield to_sse(event)
        finally:
            await events.aclose()

    async def tracked(
        self,
        inv: Invocation,
        key: ConversationKey | None,
        interruption: Interruption | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        """One turn, registered as an async task so /ping answers HealthyBusy meanwhile."""
        if self.settings.voice_paused:
            # No model call (no tokens billed) and no TTS session: there is no endpoint.
            yield error_event("voice_paused", VOICE_PAUSED_MESSAGE)
            return
        task_id = self.app.add_async_task("voice_invocation", {"mode": inv.mode})
        try:
            async with self.conversations.using(key) as conversation:
                events = answer_turn(self.pipeline, conversation, inv, interruption)
                try:
                    async for event in events:
                        yield event
                finally:
                    await events.aclose()
        finally:
            self.app.complete_async_task(task_id)


def sse_conversation(runtime_session: str | None, session_id: str | None) -> ConversationKey | None:
    """Over SSE (one request per turn) a conversation is named by the runtime session, the
    payload, or both; with neither the answer is a one-off."""
    if runtime_session is None and session_id is None:
        return None
    return (runtime_session, session_id or "")


class _DeferredJSON(Response):
    """JSON made when the response is sent, on the server's event loop (where the TTS client
    lives); an `error` event is answered 503 (the TTS, not the request, is the problem)."""

    media_type = "application/json"

    def __init__(self, make: Any) -> None:
        super().__init__()
        self._make = make

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await self._make()
        status = 503 if body.get("type") == EventType.ERROR else 200
        await JSONResponse(body, status_code=status)(scope, receive, send)

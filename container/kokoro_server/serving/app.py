"""HTTP and WebSocket routes of the SageMaker container (its fixed contract: docs/container.md).

- GET  /ping                               200 once the model loaded and warmed up, else 503
- POST /invocations                        one-shot synthesis: JSON in, audio out (one_shot.py);
                                           `{"list": "voices"}`: the voice list (voice_list.py)
- GET  /voices                             the loaded voices and the blend syntax
- WS   /invocations-bidirectional-stream   session protocol v1 (see session.py)

Handlers only translate between HTTP/WebSocket and the session/synthesis objects; what they
share is on the app's state (server_state.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from kokoro_server.config import Settings
from kokoro_server.logs import fields
from kokoro_server.serving import one_shot, protocol
from kokoro_server.serving.admission import log_refused, refusal
from kokoro_server.serving.one_shot_io import OneShotCall, read_capped_body
from kokoro_server.serving.protocol import ProtocolError
from kokoro_server.serving.server_state import error_response, keep, shared
from kokoro_server.serving.session import Session
from kokoro_server.serving.synthesis import SynthesisService
from kokoro_server.serving.voice_list import check_list_request, voice_list
from kokoro_server.serving.websocket_transport import StarletteTransport

log = logging.getLogger("kokoro.app")

MAX_BODY_BYTES = 256 * 1024


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    server = shared(app)
    if server.service.state == "loading":
        server.service.start_loading()
    yield
    if server.owns_service:
        server.service.shutdown()


async def ping(request: Request) -> Response:
    # Answers from state alone: never waits on the model.
    server = shared(request.app)
    service = server.service
    if service.ready:
        assert service.engine is not None
        # The provider in use, so a CPU fallback is visible from outside (bench.gpu).
        return JSONResponse(
            {
                "status": "healthy",
                "sessions": len(server.sessions),
                "provider": service.engine.provider,
            }
        )
    body: dict[str, Any] = {"status": service.state}
    if service.failure:
        body["error"] = service.failure
    return JSONResponse(body, status_code=503)


def _not_ready(service: SynthesisService) -> Response:
    return error_response(503, "not_ready", f"model is {service.state}")


async def voices(request: Request) -> Response:
    service = shared(request.app).service
    if service.engine is None or not service.ready:
        return _not_ready(service)
    return JSONResponse(voice_list(service.engine))


async def invocations(request: Request) -> Response:
    server = shared(request.app)
    body = await read_capped_body(request, MAX_BODY_BYTES)
    if body is None:
        return error_response(413, "frame_too_large", f"body exceeds {MAX_BODY_BYTES} bytes")
    call: one_shot.OneShot | None = None
    try:
        obj = protocol.decode_frame(body, MAX_BODY_BYTES)
        if "list" in obj:
            check_list_request(obj)
        else:
            call = one_shot.parse(obj, server.settings)
    except ProtocolError as exc:
        return error_response(400, exc.code, exc.message)
    service = server.service
    engine = service.engine
    if engine is None or not service.ready:
        return _not_ready(service)
    if call is None:
        # A read of what is loaded: no synthesis, so no admission (never `busy`).
        return JSONResponse(voice_list(engine))
    try:
        prepared = one_shot.prepare(call, engine, server.settings)
    except ProtocolError as exc:
        return error_response(400, exc.code, exc.message)
    if call.phonemes:
        return await one_shot.phonemes(service, engine, prepared)
    cause, reason = refusal(server)
    if reason:
        log_refused(server, cause, reason, route="one-shot")
        return error_response(503, "busy", reason, retry_after_s=1)
    admitted = OneShotCall()
    server.sessions.add(admitted)
    try:
        return await one_shot.speak(request, service, engine, prepared)
    finally:
        server.sessions.discard(admitted)


async def bidirectional(websocket: WebSocket) -> None:
    await websocket.accept()  # at once: SageMaker's sidecar expects it within 250 ms
    server = shared(websocket.app)
    transport = StarletteTransport(websocket)
    cause, reason = refusal(server)
    if reason:
        await websocket.send_text(protocol.error("busy", reason, fatal=True))
        await transport.close(1013, "busy")
        log_refused(server, cause, reason)
        return
    try:
        engine = await server.service.wait_ready()
    except RuntimeError as exc:
        await websocket.send_text(protocol.error("not_ready", str(exc), fatal=True))
        await transport.close(1011, "model unavailable")
        return
    session = Session(transport, server.service, server.settings, engine.default_voice)
    server.sessions.add(session)
    try:
        await session.run()
    except Exception:
        log.exception("session crashed", extra=fields(session=session.id))
        with contextlib.suppress(Exception):
            await websocket.send_text(protocol.error("internal", "server error", fatal=True))
        await transport.close(1011, "internal error")
    finally:
        server.sessions.discard(session)


def create_app(
    settings: Settings | None = None, service: SynthesisService | None = None
) -> Starlette:
    settings = settings or Settings.from_env()
    app = Starlette(
        routes=[
            Route("/ping", ping, methods=["GET"]),
            Route("/invocations", invocations, methods=["POST"]),
            Route("/voices", voices, methods=["GET"]),
            WebSocketRoute("/invocations-bidirectional-stream", bidirectional),
        ],
        lifespan=_lifespan,
    )
    keep(app, settings, service or SynthesisService(settings), owns_service=service is None)
    return app

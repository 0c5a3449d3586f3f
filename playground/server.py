"""The page server: the playground page and its scripts, and where its WebSocket goes.

    GET  /                 the page (static/index.html)
    GET  /static/...       its scripts, worklet and styles: nothing comes from anywhere else
    GET  /api/config       what the page offers: target, text source, sample rate, speeds
    POST /api/connection   {"session_id"} -> {"url"}: the local agent's /ws, or a presigned
                           wss:// URL for a deployed runtime (credentials stay here)

It listens on 127.0.0.1 only and answers only requests addressed to it by that name (Host
check), so a web page elsewhere cannot use it to sign URLs, not even through DNS rebinding;
a request a browser sends from another page (its Origin is not this server's own) is refused
with 403, so no other site can have it sign URLs or start connections with a simple POST.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kokoro_stream.messages import SPEED_RANGE
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from playground.targets import SESSION_ID, AgentTarget, TargetError

STATIC_DIR = Path(__file__).with_name("static")
LOOPBACK_NAMES = ["127.0.0.1", "localhost"]
MAX_BODY_BYTES = 4096


@dataclass(frozen=True)
class PageConfig:
    """What the page shows and offers; `GET /api/config`. The voices are not here: the page
    asks the agent for them over its /ws, so they are the deployment's, not this machine's."""

    target: AgentTarget
    sample_rate: int = 24000
    text_source: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "target": self.target.kind,
            "target_description": self.target.describe(),
            "sample_rate": self.sample_rate,
            "text_source": self.text_source,
            "speed_range": list(SPEED_RANGE),
        }


def content_security_policy(target: AgentTarget) -> str:
    """Scripts, styles and the worklet from this server only; the WebSocket to the target."""
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src 'self' {target.connect_src()}; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


class SecurityHeaders:
    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"cache-control", b"no-store"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


class OwnOriginOnly:
    """403 for a request whose Origin is not this server's own (`http://` + its Host).

    Browsers send Origin on every POST (the page's own fetch included) and on cross-origin
    requests; a client without one (curl, the tests) is not a page and passes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and origin.lower() != f"http://{headers.get('host', '')}".lower():
                await _error(403, "requests from other pages are refused")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(config: PageConfig) -> Starlette:
    async def index(_request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    async def no_icon(_request: Request) -> Response:
        return Response(status_code=204)  # the page has none; answer before browsers ask twice

    async def page_config(_request: Request) -> Response:
        return JSONResponse(config.as_json())

    async def connection(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "request body too large")
        try:
            session_id = json.loads(body or b"{}").get("session_id")
        except (ValueError, AttributeError):
            return _error(400, 'body must be a JSON object {"session_id": "..."}')
        if not isinstance(session_id, str) or not SESSION_ID.match(session_id):
            return _error(400, "session_id must be 33-256 letters, digits or '-'")
        try:
            url = config.target.connection_url(session_id)
        except TargetError as exc:
            return _error(502, str(exc))
        return JSONResponse({"url": url, "session_id": session_id})

    return Starlette(
        routes=[
            Route("/", index),
            Route("/favicon.ico", no_icon),
            Route("/api/config", page_config),
            Route("/api/connection", connection, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_NAMES),
            Middleware(OwnOriginOnly),
            Middleware(SecurityHeaders, csp=content_security_policy(config.target)),
        ],
    )


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)

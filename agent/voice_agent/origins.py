"""Which web pages may drive the agent: an Origin allowlist in front of every route.

A browser lets any page open a WebSocket to any address and send a "simple" cross-origin POST
(`Content-Type: text/plain` is enough: the SDK decodes the body as JSON whatever its type),
so without this check any site the user visits could talk to a local agent, and through it
spend the user's Bedrock credentials. Browsers always send `Origin` on both; a request that
carries one not on the list is refused with HTTP 403 before any handler runs.

Allowed: loopback pages (http or https on 127.0.0.1, localhost or [::1], any port), the
origins named in VOICE_AGENT_ALLOWED_ORIGINS (comma-separated; `*` allows every origin), and
requests without an Origin (non-browser clients: the devkit caller, the integrations).

Requests forwarded by AgentCore are not checked: they carry AgentCore's session header, which
a browser cannot put on a WebSocket handshake or on a simple POST (a custom header makes it
preflighted, and the preflight, an OPTIONS with a foreign Origin and no such header, is
refused here). The deployed runtime's own gate is its IAM (SigV4) authorizer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from bedrock_agentcore.runtime.models import SESSION_HEADER
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

log = logging.getLogger("voice_agent")

ALLOWED_ORIGINS_ENV = "VOICE_AGENT_ALLOWED_ORIGINS"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
WEB_SCHEMES = ("http", "https")
REFUSED = "origin not allowed: set VOICE_AGENT_ALLOWED_ORIGINS to let this page use the agent"


@dataclass(frozen=True)
class OriginPolicy:
    """Loopback origins always; `extra` exact origins (`scheme://host[:port]`); or any."""

    extra: frozenset[str] = frozenset()
    any_origin: bool = False

    @classmethod
    def parse(cls, raw: str) -> OriginPolicy:
        """VOICE_AGENT_ALLOWED_ORIGINS; raises ValueError naming an entry that is no origin."""
        entries = [entry.strip() for entry in raw.split(",") if entry.strip()]
        if "*" in entries:
            return cls(any_origin=True)
        extra = set()
        for entry in entries:
            origin = _normalized(entry)
            if origin is None:
                raise ValueError(
                    f"{ALLOWED_ORIGINS_ENV}: {entry!r} is not an origin such as "
                    "https://app.example.com or http://host:8000 (no path), nor '*'"
                )
            extra.add(origin)
        return cls(frozenset(extra))

    def allows(self, origin: str | None) -> bool:
        if origin is None or self.any_origin:
            return True
        normalized = _normalized(origin)
        if normalized is None:  # "null" (sandboxed frames, file://) or garbage
            return False
        return normalized in self.extra or _is_loopback(normalized)


def _normalized(origin: str) -> str | None:
    """`scheme://host[:port]` in lower case, or None for anything that is not an origin."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port  # raises ValueError for a port that is no number or out of range
    except ValueError:
        return None
    if parts.scheme not in WEB_SCHEMES or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def _is_loopback(normalized: str) -> bool:
    return urlsplit(normalized).hostname in LOOPBACK_HOSTS


class OriginGate:
    """ASGI middleware: 403 for a browser request from an origin the policy does not allow."""

    def __init__(self, app: ASGIApp, policy: OriginPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if SESSION_HEADER not in headers and not self.policy.allows(origin):
                log.warning(
                    "refused %s %s from Origin %r: %s",
                    scope["type"],
                    scope["path"],
                    origin,
                    REFUSED,
                )
                await _refuse(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await PlainTextResponse(REFUSED, status_code=403)(scope, receive, send)
        return
    # A close before the accept: the server answers the handshake with HTTP 403. (uvicorn's
    # denial-response path would carry a body but logs a spurious handshake error.)
    await WebSocket(scope, receive, send).close(code=1008)

"""What the routes share, kept on the Starlette app's state.

drain.py and the tests read the same attributes there (`service`, `settings`,
`active_sessions`, `draining`); `shared(app)` is the routes' typed view of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse

from kokoro_server.config import Settings
from kokoro_server.serving.capacity import Admitted
from kokoro_server.serving.synthesis import SynthesisService


@dataclass(frozen=True)
class Shared:
    settings: Settings
    service: SynthesisService
    # Sessions and one-shot requests in synthesis: one admission for both.
    sessions: set[Admitted]
    draining: bool  # set by serving/drain.py on SIGTERM
    owns_service: bool  # tests share one loaded model between several apps


def keep(app: Starlette, settings: Settings, service: SynthesisService, owns_service: bool) -> None:
    """Put a new app's shared parts on its state."""
    app.state.settings = settings
    app.state.service = service
    app.state.active_sessions = set()
    app.state.draining = False
    app.state.owns_service = owns_service


def shared(app: Any) -> Shared:
    """The shared parts as they are now (`draining` changes once, on SIGTERM)."""
    state = app.state
    return Shared(
        settings=state.settings,
        service=state.service,
        sessions=state.active_sessions,
        draining=bool(state.draining),
        owns_service=bool(state.owns_service),
    )


def error_response(
    status: int, code: str, message: str, retry_after_s: int | None = None
) -> JSONResponse:
    """The JSON error body every HTTP route answers with (docs/protocol.md)."""
    headers = {} if retry_after_s is None else {"Retry-After": str(retry_after_s)}
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )

"""Whether a new session or one-shot request may start now (capacity.py measures the load)."""

from __future__ import annotations

import logging

from kokoro_server.logs import fields
from kokoro_server.serving.capacity import over_capacity
from kokoro_server.serving.server_state import Shared

log = logging.getLogger("kokoro.app")


def refusal(shared: Shared) -> tuple[str, str]:
    """Why a new session must get `busy` now, as (cause, message), or ("", "").

    cause: "draining", "session_limit", "overload" or "starting" (the "session refused"
    record)."""
    settings, sessions = shared.settings, shared.sessions
    if shared.draining:
        return "draining", "server shutting down; retry (another instance takes new sessions)"
    if len(sessions) >= settings.max_sessions:
        return (
            "session_limit",
            f"server at its limit of {settings.max_sessions} sessions; retry later",
        )
    # Speaking, or admitted and about to speak: never the cancelled, finished or gone.
    demanding = sum(1 for session in sessions if session.demanding)
    streams = shared.service.capacity_streams()
    if over_capacity(demanding, streams, settings.max_load):
        return "overload", (
            f"server over capacity: {demanding} sessions speaking or about to, synthesis "
            f"sustains about {streams:.1f} real-time streams; retry later"
        )
    starting = sum(1 for session in sessions if session.starting)
    if settings.max_starting and streams is not None and starting >= settings.max_starting:
        return "starting", (
            f"server busy: {starting} sessions still waiting for their first audio "
            f"(limit {settings.max_starting}); retry later"
        )
    return "", ""


def log_refused(shared: Shared, cause: str, reason: str, **route: str) -> None:
    log.warning(
        "session refused",
        extra=fields(cause=cause, reason=reason, active=len(shared.sessions), **route),
    )

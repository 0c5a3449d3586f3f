"""POST /invocations (one-shot synthesis) on a test server, over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx


def post(server: Any, body: Any, **kwargs: Any) -> httpx.Response:
    """`body` as JSON (bytes and str are sent as they are) to `server.http`/invocations."""
    content = body if isinstance(body, bytes | str) else json.dumps(body)
    return httpx.post(f"{server.http}/invocations", content=content, timeout=60, **kwargs)

"""The AWS region as this client finds it (no AWS import: a WebSocket user loads none)."""

from __future__ import annotations

import os
from collections.abc import Mapping

NO_REGION = (
    "no AWS region configured: pass one, or set AWS_REGION (or AWS_DEFAULT_REGION, or a "
    "profile's region)"
)


def region_from_env(env: Mapping[str, str] | None = None) -> str | None:
    """AWS_REGION, then AWS_DEFAULT_REGION. botocore alone reads only the second, so callers
    resolve the region here and pass it to every client they build."""
    env = os.environ if env is None else env
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if region := env.get(name, "").strip():
            return region
    return None

"""Every item of a paginated AWS listing, across all its pages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def paginated(client: Any, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
    """The items under `key` on each page of `operation` (a boto3 paginator), in order."""
    for page in client.get_paginator(operation).paginate(**params):
        yield from page.get(key, [])

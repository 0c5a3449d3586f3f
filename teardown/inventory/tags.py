"""Tag helpers: AWS APIs return tags as lists of {Key, Value} or as plain dicts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from teardown.model import APP_TAG_KEY


def tag_dict(tags: Iterable[Mapping[str, str]] | Mapping[str, str] | None) -> dict[str, str]:
    if tags is None:
        return {}
    if isinstance(tags, Mapping):
        return {str(k): str(v) for k, v in tags.items()}
    return {str(t["Key"]): str(t.get("Value", "")) for t in tags}


def is_app(tags: Mapping[str, str], app_name: str) -> bool:
    return tags.get(APP_TAG_KEY) == app_name

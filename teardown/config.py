"""Defaults from the CDK app's ``cdk.json`` context, overridden by command-line options."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_APP_NAME = "kokoro-voice"
# A custom bootstrap qualifier in cdk.json context; without it the CDK's default applies,
# read from aws-cdk-lib when needed (teardown.manifests.bootstrap_repository).
QUALIFIER_CONTEXT_KEY = "@aws-cdk/core:bootstrapQualifier"
# The CDK app's context key that makes a deploy import an existing weights bucket instead of
# creating one (stacks/config.py): how a retained bucket is reused after `cdk destroy`.
WEIGHTS_BUCKET_CONTEXT_KEY = "weights_bucket"

# Same shape the CDK app accepts for its name: it becomes part of tags and stack names.
_APP_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-_]{0,62}$")


class ConfigError(Exception):
    """Bad input from the user or from cdk.json; the CLI prints it and exits 2."""


@dataclass(frozen=True)
class CdkDefaults:
    app_name: str
    qualifier: str | None  # None: the CDK's default qualifier


def load_cdk_context(app_dir: Path) -> dict[str, Any]:
    """The ``context`` object of ``<app_dir>/cdk.json``; empty when there is no cdk.json."""
    path = app_dir / "cdk.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    context = data.get("context", {}) if isinstance(data, dict) else None
    if not isinstance(context, dict):
        raise ConfigError(f"{path}: 'context' must be a JSON object")
    return context


def cdk_defaults(app_dir: Path) -> CdkDefaults:
    """The app name and bootstrap qualifier from cdk.json context. No region: the CDK app
    deploys to the region the CDK CLI resolves, and the cleanup resolves it the same way."""
    context = load_cdk_context(app_dir)
    qualifier = context.get(QUALIFIER_CONTEXT_KEY)
    return CdkDefaults(
        app_name=str(context.get("app_name") or DEFAULT_APP_NAME),
        qualifier=str(qualifier) if qualifier else None,
    )


def validate_app_name(name: str) -> str:
    if not _APP_NAME_RE.match(name):
        raise ConfigError(
            f"invalid app name {name!r}: use a letter then letters, digits, '-' or '_' "
            "(at most 63 characters), the same value as the CDK app's app_name"
        )
    return name


def name_matches_app(name: str, app_name: str) -> bool:
    """Whether ``name`` starts with the app name as the CDK app and AWS services spell it:
    'kokoro-voice-tts', 'kokoro_voice_agent-x', 'KokoroVoice-Tts', 'KokoroVoiceTtsEndpoint'.

    The app name must end at a boundary (end, separator, or a new capitalised word), so app
    'kokoro' never claims 'kokoro-voice-tts' and 'kokoro-voice' never claims 'KokoroVoice2'."""
    parts = [p for p in re.split(r"[-_]", app_name) if p]
    separated = "[-_]?".join(re.escape(p) for p in parts)
    if re.match(rf"(?i:{separated})(?=$|[-_./])", name):
        return True
    pascal = "[-_]?".join(re.escape(p[:1].upper() + p[1:]) for p in parts)
    return re.match(rf"{pascal}(?=$|[-_./A-Z])", name) is not None

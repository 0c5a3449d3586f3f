"""How one CDK context key is declared, read and documented (the keys are in stacks/config.py).

A key is a field of `AppConfig` made with `context_key(default, doc, reader)`: the field's name
is the key, `default` is its value in cdk.json, and the `Reader` turns whatever `-c key=value`
or cdk.json gave (a string from the command line, a JSON value from cdk.json) into the field's
value, or raises `ConfigError` naming the key. The readers: integers in a range, flags,
names matching a pattern, choices, free text, and the app's own kinds of value (an optional S3
bucket name, a folder under the weights prefix, an optional e-mail address). No CDK import
here: the weights fetcher, the cleanup and the docs table read the declarations without
starting Node.js.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stacks.errors import DeployCheckError

Default = str | int | bool


class ConfigError(DeployCheckError):
    """A context value is missing or invalid."""


@dataclass(frozen=True)
class Reader:
    """Parses one key's given value; `rule` says in words what it accepts (the docs column)."""

    rule: str
    parse: Callable[[str, Any], Any]  # (key, given value) -> the field's value


@dataclass(frozen=True)
class ContextKey:
    default: Default
    doc: str
    reader: Reader


def context_key(default: Default, doc: str, reader: Reader) -> Any:
    """An `AppConfig` field read from the context key of the field's name."""
    return field(metadata={"context": ContextKey(default, doc, reader)})


def declared_keys(config_class: type) -> dict[str, ContextKey]:
    """Every context key of `config_class`, in declaration order."""
    return {
        f.name: f.metadata["context"]
        for f in dataclasses.fields(config_class)
        if "context" in f.metadata
    }


def integer(low: int, high: int) -> Reader:
    def parse(key: str, value: Any) -> int:
        if isinstance(value, bool):
            raise ConfigError(f"context {key!r} must be an integer, got {value!r}")
        try:
            number = int(str(value).strip())
        except ValueError as exc:
            raise ConfigError(f"context {key!r} must be an integer, got {value!r}") from exc
        if not low <= number <= high:
            raise ConfigError(f"context {key!r} must be between {low} and {high}, got {number}")
        return number

    return Reader(f"{low}-{high}", parse)


def _flag(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ConfigError(f"context {key!r} must be true or false, got {value!r}")


FLAG = Reader("`true` or `false`", _flag)


def free_text(rule: str) -> Reader:
    """Taken as given: a name checked elsewhere (the weights manifest, SageMaker's AMI list)."""
    return Reader(rule, lambda _key, value: str(value))


def matching(pattern: re.Pattern[str], what: str) -> Reader:
    def parse(key: str, value: Any) -> str:
        if not isinstance(value, str) or not pattern.match(value):
            raise ConfigError(f"context {key!r} must be {what}, got {value!r}")
        return value

    return Reader(what, parse)


def one_of(*choices: str) -> Reader:
    """Case and surrounding blanks do not matter; the value is kept lower-cased."""

    def parse(key: str, value: Any) -> str:
        text = str(value).strip().lower()
        if text not in choices:
            raise ConfigError(f"context {key!r} must be one of {', '.join(choices)}, got {text!r}")
        return text

    return Reader(", ".join(f"`{choice}`" for choice in choices), parse)


# S3 general purpose bucket naming rules (3-63 characters; see S3 "Bucket naming rules").
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_IPV4 = re.compile(r"^\d+\.\d+\.\d+\.\d+$")
_BUCKET_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
# Folder names under the weights prefix: no leading '/', no empty, '.' or '..' part.
_PREFIX_PART = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
_BUCKET_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", "--x-s3", "--table-s3", ".mrap")


def _bucket_name(key: str, value: Any) -> str | None:
    """'' or unset: the stack creates the bucket. Otherwise a valid S3 bucket name."""
    if value in (None, ""):
        return None
    name = str(value).strip()
    if (
        not _BUCKET.match(name)
        or ".." in name
        or _IPV4.match(name)
        or name.startswith(_BUCKET_RESERVED_PREFIXES)
        or name.endswith(_BUCKET_RESERVED_SUFFIXES)
    ):
        raise ConfigError(
            f"context {key!r} must be an S3 bucket name (3-63 lower-case letters, "
            f"digits, '.' or '-'), got {value!r}; use the WeightsBucketName output of the "
            "destroyed stack or the bucket the cleanup report lists"
        )
    return name


def _folder(key: str, value: Any) -> str:
    """'' or unset: none. Otherwise a folder under the weights prefix, returned ending in '/'."""
    if value in (None, ""):
        return ""
    text = str(value).strip()
    parts = text.removesuffix("/").split("/")
    if not all(_PREFIX_PART.match(part) and part.strip(".") for part in parts):
        raise ConfigError(
            f"context {key!r} must be a folder under the weights prefix, like "
            f"'voices/' (letters, digits, '.', '_' or '-' between '/'; no leading '/', no "
            f"'..'), got {value!r}"
        )
    return "/".join(parts) + "/"


def _email(key: str, value: Any) -> str | None:
    """'' or unset: no subscription. Otherwise one e-mail address."""
    if value in (None, ""):
        return None
    address = str(value).strip()
    if not _EMAIL.match(address):
        raise ConfigError(f"context {key!r} must be one e-mail address (or empty), got {value!r}")
    return address


BUCKET_NAME = Reader("empty, or an S3 bucket name", _bucket_name)
FOLDER = Reader(
    "empty, or a folder like `voices/`: letters, digits, `.`, `_`, `-` between `/`, no "
    "leading `/`, no `..` part",
    _folder,
)
EMAIL_ADDRESS = Reader("empty, or one e-mail address", _email)


def _shown(value: Default) -> str:
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{value}`" if value != "" else '`""`'


def context_table(keys: dict[str, ContextKey]) -> str:
    """The Markdown table of docs/deploy.md, "Configuration (context keys)"."""
    rows = [
        "| Key | Default | Valid values | Meaning |",
        "|---|---|---|---|",
        *(
            f"| `{name}` | {_shown(key.default)} | {key.reader.rule} | {key.doc} |"
            for name, key in keys.items()
        ),
    ]
    return "\n".join(rows)

"""The server's environment variables, as `Settings` declares them (kokoro_server.config).

Every declared variable is read from the environment into its field, a bad value of each kind
(not a number, out of range, not a choice) stops start-up with an error naming the variable,
no two fields share a variable, and the table in docs/container.md is the generated one.

    python -m kokoro_server.config   # prints the docs table
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from kokoro_server.config import Env, Settings, env_fields, env_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "container.md"
TYPES = typing.get_type_hints(Settings)
FIELDS = env_fields()
IDS = [spec.name for _, spec in FIELDS]
BOUNDED = [
    (f, spec)
    for f, spec in FIELDS
    if spec.choices or any(b is not None for b in (spec.ge, spec.gt, spec.le, spec.lt))
]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    """Only what a test sets: the developer's own KOKORO_* variables must not leak in."""
    for _, spec in FIELDS:
        monkeypatch.delenv(spec.name, raising=False)


def _other_valid(field: dataclasses.Field, spec: Env) -> tuple[str, object]:
    """A valid value for the field, different from its default: (env text, parsed value)."""
    kind = TYPES[field.name]
    default = field.default
    if spec.choices:
        value = next(choice for choice in spec.choices if choice != default)
        return value, value
    if kind is bool:
        return ("0", False) if default else ("1", True)
    if kind is str:
        return "/some/where", "/some/where"
    assert kind in (int, float) and isinstance(default, int | float)
    for candidate in (default + 1, default - 1, default + 0.5, default - 0.5):
        if (kind is float or float(candidate).is_integer()) and spec.allows(candidate):
            return str(candidate), kind(candidate)
    raise AssertionError(f"no valid value next to the default of {spec.name}")


def test_every_field_with_a_variable_declares_a_meaning():
    declared = {f.name for f, _ in FIELDS}
    assert {f.name for f in dataclasses.fields(Settings)} - declared == {"extra"}
    for _, spec in FIELDS:
        assert re.fullmatch(r"KOKORO_[A-Z0-9_]+", spec.name), spec.name
        assert spec.doc.strip() and "\n" not in spec.doc, spec.name


def test_no_two_fields_share_a_variable():
    names = [spec.name for _, spec in FIELDS]
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)


def test_unset_and_empty_variables_keep_the_defaults(monkeypatch):
    assert Settings.from_env() == Settings()
    for _, spec in FIELDS:
        monkeypatch.setenv(spec.name, "")
    assert Settings.from_env() == Settings()


@pytest.mark.parametrize(("field", "spec"), FIELDS, ids=IDS)
def test_each_variable_reaches_its_field(monkeypatch, field, spec):
    text, value = _other_valid(field, spec)
    monkeypatch.setenv(spec.name, text)
    settings = Settings.from_env()
    assert getattr(settings, field.name) == value
    assert type(getattr(settings, field.name)) is TYPES[field.name]
    # Nothing else moved.
    assert dataclasses.replace(settings, **{field.name: field.default}) == Settings()


def test_all_variables_at_once_from_a_mapping():
    env = {spec.name: _other_valid(f, spec)[0] for f, spec in FIELDS}
    settings = Settings.from_env(env)
    for f, spec in FIELDS:
        assert getattr(settings, f.name) == _other_valid(f, spec)[1], spec.name


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("KOKORO_MAX_SESSIONS", "many", "KOKORO_MAX_SESSIONS must be an integer, got 'many'"),
        ("KOKORO_KEEP_ALIVE_S", "7.5", "KOKORO_KEEP_ALIVE_S must be an integer, got '7.5'"),
        ("KOKORO_SEND_STALL_S", "soon", "KOKORO_SEND_STALL_S must be a number, got 'soon'"),
        ("KOKORO_PACING", "maybe", "KOKORO_PACING must be 1 or 0 (true or false), got 'maybe'"),
        ("KOKORO_SEND_STALL_S", "0", "KOKORO_SEND_STALL_S must be > 0, got '0'"),
        ("KOKORO_MAX_SESSIONS", "-1", "KOKORO_MAX_SESSIONS must be >= 1, got '-1'"),
        ("KOKORO_MAX_SESSIONS", "0", "KOKORO_MAX_SESSIONS must be >= 1, got '0'"),
        ("KOKORO_PORT", "70000", "KOKORO_PORT must be in [0, 65535], got '70000'"),
        ("KOKORO_TRIM_THRESHOLD_DBFS", "0", "KOKORO_TRIM_THRESHOLD_DBFS must be in [-120, 0)"),
        ("KOKORO_TRIM_WINDOW_MS", "0", "KOKORO_TRIM_WINDOW_MS must be in (0, 100], got '0'"),
        ("KOKORO_IDLE_TIMEOUT_S", "nan", "KOKORO_IDLE_TIMEOUT_S must be > 0, got 'nan'"),
        ("KOKORO_DRAIN_S", "inf", "KOKORO_DRAIN_S must be >= 0, got 'inf'"),
        ("KOKORO_SCHEDULER", "edf", "KOKORO_SCHEDULER must be one of deadline, fifo, got 'edf'"),
        ("KOKORO_PROVIDER", "gpu", "KOKORO_PROVIDER must be one of auto, cuda, cpu, got 'gpu'"),
    ],
)
def test_a_bad_value_names_the_variable_the_value_and_the_rule(monkeypatch, name, raw, message):
    monkeypatch.setenv(name, raw)
    with pytest.raises(ValueError, match=re.escape(message)):
        Settings.from_env()


@pytest.mark.parametrize(("field", "spec"), BOUNDED, ids=[s.name for _, s in BOUNDED])
def test_every_bound_is_enforced_at_its_edge(monkeypatch, field, spec) -> None:
    """Each exclusive bound and just past each inclusive one is refused; an inclusive bound
    itself is accepted."""
    outside: list[object] = [b - 1 for b in (spec.ge,) if b is not None]
    outside += [b + 1 for b in (spec.le,) if b is not None]
    outside += [b for b in (spec.gt, spec.lt) if b is not None]
    for value in outside or ["no-such-choice"]:
        monkeypatch.setenv(spec.name, str(value))
        with pytest.raises(ValueError, match=re.escape(spec.name)):
            Settings.from_env()
    for edge in (b for b in (spec.ge, spec.le) if b is not None):
        monkeypatch.setenv(spec.name, str(TYPES[field.name](edge)))
        assert getattr(Settings.from_env(), field.name) == edge


def test_settings_built_in_code_are_checked_too():
    with pytest.raises(ValueError, match=r"send_stall_s \(KOKORO_SEND_STALL_S\) must be > 0"):
        Settings(send_stall_s=0.0)
    with pytest.raises(ValueError, match=r"scheduler \(KOKORO_SCHEDULER\) must be one of"):
        Settings(scheduler="edf")
    assert Settings(max_sessions=1, send_stall_s=0.1).max_sessions == 1


def test_docs_table_is_the_generated_one():
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- settings:begin -->\n(.*?)\n<!-- settings:end -->", text, re.DOTALL)
    assert match, "docs/container.md lost its settings markers"
    assert match.group(1) == env_table(), (
        "docs/container.md settings table is stale: run `python -m kokoro_server.config` and "
        "paste its output between the markers"
    )


def test_the_documented_command_prints_the_table():
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_server.config"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout == env_table() + "\n"


def test_docs_table_has_one_row_per_variable_in_declaration_order():
    rows = env_table().splitlines()[2:]
    assert [re.match(r"\| `(KOKORO_[A-Z0-9_]+)` \|", row).group(1) for row in rows] == IDS
    assert all(row.count(" | ") == 3 for row in rows), "a meaning breaks the table's columns"

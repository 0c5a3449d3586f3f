"""The context keys are declared once (stacks/config.py): cdk.json and the docs table agree with
the declarations, every value is read and refused the same way, naming the key, and a
construct's settings are filled from the keys of the same name (`AppConfig.settings_for`).

cdk.json is checked, not generated: it also holds the CDK's feature flags, which the CDK CLI
writes and people edit, so it stays a hand-kept file that this test holds to the declarations.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest
from aws_cdk import App

from stacks.config import CONTEXT_KEYS, DEFAULTS, ConfigError, load_config
from stacks.context import context_table
from tests.support.cdk_synth import REPO_ROOT

DOCS = REPO_ROOT / "docs" / "deploy.md"
# Refused by every reader that checks anything (integers, flags, names, choices, folders).
INVALID = "not valid!"
# Taken as given here and checked where they are used (the weights manifest, SageMaker).
FREE_TEXT = {"weights_revision", "inference_ami_version"}


def _app_context() -> list[tuple[str, Any]]:
    context = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
    return [(key, value) for key, value in context.items() if not key.startswith("@")]


def test_cdk_json_holds_every_declared_default_in_declaration_order() -> None:
    # Types too: JSON's true would pass for 1 in a plain comparison.
    declared = [(name, type(value), value) for name, value in DEFAULTS.items()]
    assert [(name, type(value), value) for name, value in _app_context()] == declared


def test_every_declared_default_is_a_valid_value() -> None:
    assert load_config(App(context=dict(_app_context())).node) == load_config(App().node)
    for name, key in CONTEXT_KEYS.items():
        key.reader.parse(name, key.default)


def test_docs_table_is_what_the_documented_command_prints() -> None:
    command = [sys.executable, "-m", "stacks.config"]
    printed = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    assert printed.stdout == context_table(CONTEXT_KEYS) + "\n"
    rows = printed.stdout.splitlines()[2:]
    assert [_key_of(row) for row in rows] == list(DEFAULTS)
    docs = DOCS.read_text(encoding="utf-8").split("<!-- context:begin -->\n", 1)[-1]
    assert docs.startswith(printed.stdout + "<!-- context:end -->"), (
        "docs/deploy.md context table is stale: paste the output of "
        "`.venv/bin/python -m stacks.config` between its context markers"
    )


@pytest.mark.parametrize("name", [name for name in CONTEXT_KEYS if name not in FREE_TEXT])
def test_a_value_outside_the_rule_is_refused_naming_the_key(name: str) -> None:
    with pytest.raises(ConfigError, match=f"context {re.escape(repr(name))} must"):
        load_config(App(context={name: INVALID}).node)


@pytest.mark.parametrize("name", sorted(FREE_TEXT))
def test_free_text_keys_are_taken_as_given(name: str) -> None:
    assert getattr(load_config(App(context={name: INVALID}).node), name) == INVALID


def test_command_line_strings_of_the_defaults_read_as_the_defaults() -> None:
    as_text = {name: str(value).lower() for name, value in DEFAULTS.items()}
    assert load_config(App(context=as_text).node) == load_config(App().node)


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"app_name": "Kokoro_Voice"}, "app_name"),
        ({"instance_type": "g5.xlarge"}, "instance_type"),
        ({"max_instances": "two"}, "must be an integer"),
        ({"min_instances": 3, "max_instances": 2}, "min_instances <= initial_instance_count"),
        ({"startup_health_check_timeout_s": 10}, "between 60 and 3600"),
        ({"voice": "Heart"}, "voice"),
        ({"bedrock_model_regions": ["us-east-1"]}, "no longer used.*bedrock:InferenceProfileArn"),
        ({"network_isolation": "maybe"}, "true or false"),
        ({"weights_bucket": "My_Bucket"}, "weights_bucket.*S3 bucket name"),
        ({"weights_bucket": "ab"}, "weights_bucket"),
        ({"weights_bucket": "a..b-bucket"}, "weights_bucket"),
        ({"weights_bucket": "192.168.10.20"}, "weights_bucket"),
        ({"weights_bucket": "xn--weights"}, "weights_bucket"),
        ({"weights_bucket": "weights-s3alias"}, "weights_bucket"),
        ({"alarm_email": "ops at example"}, "'alarm_email' must be one e-mail address"),
        ({"first_sound_alarm_p95_ms": "0"}, "'first_sound_alarm_p95_ms' must be between 1"),
        ({"refusal_alarm_minutes": "61"}, "'refusal_alarm_minutes' must be between 1 and 60"),
        ({"deployment_baking_s": "3601"}, "'deployment_baking_s' must be between 0 and 3600"),
        ({"deployment_termination_wait_s": "x"}, "'deployment_termination_wait_s' must be an"),
        ({"latency_alarm_p90_ms": "2000"}, "first_sound_alarm_p95_ms"),
    ],
)
def test_bad_values_are_refused_with_the_key_and_the_fix(
    context: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(App(context=context).node)


def test_settings_for_copies_the_same_named_settings_and_keeps_the_given_ones() -> None:
    @dataclass(frozen=True)
    class Settings:
        voice: str
        endpoint_name: str  # a property of AppConfig, not a context key
        alarms: int  # no setting of that name: the caller gives it

    config = load_config(App(context={"voice": "bf_emma"}).node)
    given = config.settings_for(Settings, alarms=3)
    assert given == Settings(voice="bf_emma", endpoint_name="kokoro-voice-tts", alarms=3)
    with pytest.raises(AttributeError, match="alarms"):
        config.settings_for(Settings)


def _key_of(row: str) -> str:
    """The context key a docs table row names."""
    match = re.match(r"\| `([a-z0-9_]+)` \|", row)
    assert match, f"not a key row: {row!r}"
    return match.group(1)

"""The stack names and output keys the smoke check reads are the CDK app's own, and reading
them from CloudFormation (moto server) gives clear errors when a stack or output is missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smoke.aws import SetupError, make_client, make_session
from smoke.diagnosis import Cause
from smoke.targets import (
    ENDPOINT_OUTPUT,
    RUNTIME_OUTPUT,
    app_name_from_cdk_json,
    output_value,
    stack_names,
)
from stacks.config import load_config
from tests.support.smoke_world import ENDPOINT, REGION, Deployed, route_env

ROOT = Path(__file__).resolve().parents[2]
# The synthesized templates as tests/stacks/test_snapshots.py keeps them in step with the app.
SNAPSHOTS = ROOT / "tests" / "stacks" / "__snapshots__" / "test_snapshots"


@pytest.mark.parametrize("app_name", ["kokoro-voice", "my-voice-2"])
def test_stack_names_are_the_apps(app_name: str) -> None:
    from aws_cdk import App  # starts the jsii runtime: only in the one test that needs it

    config = load_config(App(context={"app_name": app_name}).node)
    names = stack_names(app_name)
    assert (names.tts, names.agent) == (config.tts_stack_name, config.agent_stack_name)


def test_output_keys_are_in_the_synthesized_templates() -> None:
    names = stack_names(app_name_from_cdk_json(ROOT))
    for stack, key in ((names.tts, ENDPOINT_OUTPUT), (names.agent, RUNTIME_OUTPUT)):
        template = json.loads((SNAPSHOTS / f"test_template_snapshot[{stack}].json").read_text())
        assert key in template["Outputs"], f"{stack} has no output {key}"


def test_app_name_comes_from_cdk_json(tmp_path: Path) -> None:
    assert app_name_from_cdk_json(tmp_path) == "kokoro-voice"  # no cdk.json: the default
    (tmp_path / "cdk.json").write_text(json.dumps({"context": {"app_name": "other-voice"}}))
    assert app_name_from_cdk_json(tmp_path) == "other-voice"
    (tmp_path / "cdk.json").write_text("{not json")
    with pytest.raises(SetupError, match="cannot read"):
        app_name_from_cdk_json(tmp_path)


def cloudformation(deployed: Deployed, aws_env: pytest.MonkeyPatch) -> Any:
    for name, value in route_env(moto_url=deployed.moto_url).items():
        aws_env.setenv(name, value)
    return make_client(make_session(None), "cloudformation", REGION, 10)


def test_outputs_are_read_from_the_deployed_stack(
    deployed: Deployed, aws_env: pytest.MonkeyPatch
) -> None:
    deployed.stack("KokoroVoice-Tts", {ENDPOINT_OUTPUT: ENDPOINT})
    value = output_value(
        cloudformation(deployed, aws_env), "KokoroVoice-Tts", ENDPOINT_OUTPUT, "--endpoint-name"
    )
    assert value == ENDPOINT


def test_a_missing_stack_or_output_is_a_setup_error_naming_the_flag(
    deployed: Deployed, aws_env: pytest.MonkeyPatch
) -> None:
    client = cloudformation(deployed, aws_env)
    with pytest.raises(SetupError) as missing:
        output_value(client, "KokoroVoice-Agent", RUNTIME_OUTPUT, "--runtime-arn")
    assert missing.value.diagnosis.cause is Cause.NOT_FOUND
    assert "stack KokoroVoice-Agent not found" in missing.value.diagnosis.summary
    assert "or pass --runtime-arn" in missing.value.diagnosis.advice
    deployed.stack("KokoroVoice-Agent", {"SomethingElse": "x"})
    with pytest.raises(SetupError) as no_output:
        output_value(client, "KokoroVoice-Agent", RUNTIME_OUTPUT, "--runtime-arn")
    assert "has no output RuntimeArn" in no_output.value.diagnosis.summary
    assert "--runtime-arn" in no_output.value.diagnosis.advice

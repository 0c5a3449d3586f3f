"""Deploy-time checks: what AWS would reject only after the deploy (or on the first call)
fails synth, run as `cdk deploy` runs the app, with the fix in the message."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App

from stacks.app_builder import CFN_TYPE_NOT_IN_REGION, build_app
from stacks.config import ConfigError, load_config
from stacks.regions import (
    AGENTCORE_RUNTIME,
    CHINA_REGIONS,
    COMMERCIAL_REGIONS,
    GOVCLOUD_REGIONS,
    REGIONS_CHECKED,
    RegionConfigError,
    UnknownRegionError,
    check_profile_geography,
    closest_regions,
    resolve_model_id,
)
from tests.support.cdk_synth import AGENT, CDK_JSON_CONTEXT, DEPLOY_ACCOUNT, TTS, Synthesized

pytestmark = pytest.mark.synth

HAIKU = "anthropic.claude-haiku-4-5-20251001-v1:0"


@pytest.fixture
def deploy_env() -> Iterator[dict[str, str]]:
    """CDK_DEFAULT_* as the CLI sets them; the test picks the region."""
    saved = {k: os.environ.get(k) for k in ("CDK_DEFAULT_ACCOUNT", "CDK_DEFAULT_REGION")}
    os.environ["CDK_DEFAULT_ACCOUNT"] = DEPLOY_ACCOUNT
    try:
        yield os.environ  # type: ignore[misc]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.mark.parametrize(
    ("model", "region"),
    [
        (f"us.{HAIKU}", "us-east-1"),
        (f"us.{HAIKU}", "us-west-2"),
        (f"eu.{HAIKU}", "eu-central-1"),
        (f"eu.{HAIKU}", "eu-west-1"),
        (f"apac.{HAIKU}", "ap-northeast-1"),
        (f"jp.{HAIKU}", "ap-northeast-1"),
        (f"au.{HAIKU}", "ap-southeast-2"),
        (f"global.{HAIKU}", "ap-northeast-1"),
        (f"global.{HAIKU}", "sa-east-1"),
        (f"us-gov.{HAIKU}", "us-gov-west-1"),
        (HAIKU, "eu-west-3"),  # a plain model id is invoked in the stack's own region
    ],
)
def test_profile_matching_the_region_passes(model: str, region: str) -> None:
    check_profile_geography(model, region)


@pytest.mark.parametrize(
    ("model", "region", "fix"),
    [
        (f"us.{HAIKU}", "eu-west-1", f"bedrock_model_id=eu.{HAIKU}"),
        (f"us.{HAIKU}", "ap-northeast-1", f"bedrock_model_id=apac.{HAIKU}"),
        (f"us.{HAIKU}", "us-gov-west-1", f"bedrock_model_id=us-gov.{HAIKU}"),
        (f"eu.{HAIKU}", "us-east-1", f"bedrock_model_id=us.{HAIKU}"),
        (f"jp.{HAIKU}", "ap-southeast-1", f"bedrock_model_id=apac.{HAIKU}"),
        (f"us.{HAIKU}", "ca-central-1", f"bedrock_model_id=global.{HAIKU}"),
        (f"global.{HAIKU}", "us-gov-west-1", "plain model id"),
        (f"us.{HAIKU}", "sa-east-1", f"bedrock_model_id={HAIKU},"),
    ],
)
def test_profile_of_another_geography_is_an_error_with_the_fix(
    model: str, region: str, fix: str
) -> None:
    with pytest.raises(RegionConfigError, match=region) as caught:
        check_profile_geography(model, region)
    assert fix in str(caught.value)
    assert "inference-profiles-support" in str(caught.value)


@pytest.mark.parametrize(
    ("region", "expected"),
    [
        (None, f"us.{HAIKU}"),
        ("us-east-1", f"us.{HAIKU}"),
        ("us-west-2", f"us.{HAIKU}"),
        ("eu-central-1", f"eu.{HAIKU}"),
        ("ap-northeast-1", f"global.{HAIKU}"),
        ("us-gov-west-1", HAIKU),
    ],
)
def test_auto_model_follows_the_region(region: str | None, expected: str) -> None:
    assert resolve_model_id("auto", region) == expected
    if region is not None:
        check_profile_geography(expected, region)  # what auto picks always passes
    assert resolve_model_id(f"eu.{HAIKU}", region) == f"eu.{HAIKU}"


def test_config_rejects_a_mismatched_profile_for_the_deploy_region() -> None:
    node = App(context={"bedrock_model_id": f"us.{HAIKU}"}).node
    assert load_config(node).bedrock_model_id == f"us.{HAIKU}"  # region unknown: no check
    with pytest.raises(ConfigError, match=f"-c bedrock_model_id=eu.{HAIKU}"):
        load_config(node, "eu-west-1")


def test_synth_as_deploy_fails_for_a_mismatched_profile(
    deploy_env: dict[str, str], tmp_path: Path
) -> None:
    deploy_env["CDK_DEFAULT_REGION"] = "eu-central-1"
    context = {**CDK_JSON_CONTEXT, "bedrock_model_id": f"us.{HAIKU}"}
    with pytest.raises(ConfigError, match="every agent turn would fail"):
        build_app(context, outdir=str(tmp_path))


def test_deployed_agent_calls_the_profile_of_its_region(deployed: Synthesized) -> None:
    (runtime,) = deployed.resources(AGENT, "AWS::BedrockAgentCore::Runtime").values()
    model = runtime["Properties"]["EnvironmentVariables"]["BEDROCK_MODEL_ID"]
    assert deployed.region is not None
    assert model == resolve_model_id("auto", deployed.region)
    check_profile_geography(model, deployed.region)
    assert model.endswith(HAIKU)


def _warnings(app: App, stack: str) -> list[str]:
    found = []
    for entry in app.node.find_child(stack).node.metadata:
        if entry.type == "aws:cdk:warning":
            found.append(str(entry.data))
    return found


@pytest.mark.parametrize("allow", [None, "true"])
def test_undocumented_region_warns_with_page_and_date(
    deploy_env: dict[str, str], tmp_path: Path, allow: str | None
) -> None:
    deploy_env["CDK_DEFAULT_REGION"] = "me-central-1"
    context: dict[str, Any] = {**CDK_JSON_CONTEXT}
    if allow:
        context["allow_undocumented_region"] = allow
    app = build_app(context, outdir=str(tmp_path))
    warnings = _warnings(app, AGENT) + _warnings(app, TTS)
    if allow:
        assert warnings == []
        return
    agentcore = [w for w in warnings if "AgentCore Runtime" in w]
    assert len(agentcore) == 1
    assert AGENTCORE_RUNTIME.page in agentcore[0] and AGENTCORE_RUNTIME.checked in agentcore[0]
    assert "me-central-1" in agentcore[0] and "allow_undocumented_region=true" in agentcore[0]


def test_documented_regions_give_no_warning(deployed: Synthesized) -> None:
    for stack in (TTS, AGENT):
        assert not [w for w in _warnings(deployed.app, stack) if "not documented" in w]


# SageMaker's CreateModel execution-role permissions as "How to use SageMaker AI execution
# roles" lists them; each must be granted (scoped) to the Kokoro model's role.
CREATE_MODEL_ACTIONS = (
    "cloudwatch:PutMetricData",
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:PutLogEvents",
    "logs:DescribeLogStreams",
    "ecr:GetAuthorizationToken",
    "ecr:BatchCheckLayerAvailability",
    "ecr:GetDownloadUrlForLayer",
    "ecr:BatchGetImage",
    "s3:GetObject",
    "s3:ListBucket",
)


def _execution_role_statements(synth: Synthesized) -> list[dict[str, Any]]:
    policies = {
        k: v for k, v in synth.resources(TTS, "AWS::IAM::Policy").items() if "TtsExecutionRole" in k
    }
    assert len(policies) == 1, list(policies)
    (policy,) = policies.values()
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def test_sagemaker_role_has_what_create_model_needs(deployed: Synthesized) -> None:
    statements = _execution_role_statements(deployed)
    granted = {
        action
        for s in statements
        for action in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
    }
    assert set(CREATE_MODEL_ACTIONS) <= granted, set(CREATE_MODEL_ACTIONS) - granted
    by_sid = {s.get("Sid"): s for s in statements}
    metrics = by_sid["EndpointMetrics"]
    assert metrics["Condition"] == {
        "StringEquals": {"cloudwatch:namespace": "/aws/sagemaker/Endpoints"}
    }
    logs = json.dumps(by_sid["EndpointLogs"]["Resource"])
    assert f"arn:aws:logs:{deployed.region}:{DEPLOY_ACCOUNT}:log-group:" in logs
    assert "/aws/sagemaker/Endpoints/kokoro-voice-tts" in logs
    assert '"*"' not in logs


def test_no_fixed_name_log_group_can_block_the_next_deploy(deployed: Synthesized) -> None:
    """A log group SageMaker re-creates after a destroy must not fail the next create."""
    for stack in (TTS, AGENT):
        for logical_id, res in deployed.resources(stack, "AWS::Logs::LogGroup").items():
            name = res.get("Properties", {}).get("LogGroupName")
            # Generated names (a Lambda's /aws/lambda/<generated function name>) never collide.
            assert not isinstance(name, str), f"{stack}/{logical_id} is named {name!r}"
    (retention,) = deployed.resources(TTS, "Custom::LogRetention").values()
    assert retention["Properties"]["LogGroupName"] == "/aws/sagemaker/Endpoints/kokoro-voice-tts"
    assert retention["Properties"]["RetentionInDays"] == 30
    (endpoint_id,) = deployed.resources(TTS, "AWS::SageMaker::Endpoint")
    retention_id = next(iter(deployed.resources(TTS, "Custom::LogRetention")))
    assert retention_id in deployed.templates[TTS]["Resources"][endpoint_id]["DependsOn"]


def test_every_fixed_physical_name_is_one_the_stack_deletes(deployed: Synthesized) -> None:
    """Resources whose name the template fixes must not be retained: a retained one with a
    fixed name would make the next deploy fail with "already exists"."""
    name_keys = ("LogGroupName", "BucketName", "RepositoryName", "RoleName", "TableName")
    seen = 0
    for stack in (TTS, AGENT):
        for logical_id, res in deployed.templates[stack]["Resources"].items():
            props = res.get("Properties", {})
            fixed = [k for k in name_keys if isinstance(props.get(k), str)]
            seen += any(k in props for k in name_keys)
            if fixed and res["Type"] != "Custom::LogRetention":
                assert res.get("DeletionPolicy", "Delete") == "Delete", f"{stack}/{logical_id}"
    assert seen >= 2  # the check looked at named resources


def test_endpoint_requires_the_cuda_provider(deployed: Synthesized, tmp_path: Path) -> None:
    model = deployed.only(TTS, "AWS::SageMaker::Model")
    environment = model["Properties"]["PrimaryContainer"]["Environment"]
    assert environment["KOKORO_PROVIDER"] == "cuda"
    assert load_config(App(context={"kokoro_provider": "auto"}).node).kokoro_provider == "auto"
    with pytest.raises(ConfigError, match="kokoro_provider"):
        load_config(App(context={"kokoro_provider": "gpu"}).node)


# ---- the deploy region itself ------------------------------------------------------------


def _botocore_partition_regions() -> dict[str, set[str]]:
    import botocore

    data = json.loads((Path(botocore.__file__).parent / "data" / "endpoints.json").read_text())
    return {p["partition"]: set(p["regions"]) for p in data["partitions"]}


def test_known_regions_are_those_the_installed_sdk_knows() -> None:
    """A botocore that knows a new region fails this until stacks/regions.py lists it."""
    partitions = _botocore_partition_regions()
    assert partitions["aws"] == COMMERCIAL_REGIONS
    assert partitions["aws-us-gov"] == GOVCLOUD_REGIONS
    assert partitions["aws-cn"] == CHINA_REGIONS


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("us-esat-1", "us-east-1"),
        ("eu-cental-1", "eu-central-1"),
        ("us-east1", "us-east-1"),
        ("ap-northeast1", "ap-northeast-1"),
        ("US-EAST-1", "us-east-1"),
    ],
)
def test_a_misspelt_region_fails_synth_naming_the_closest_region(
    deploy_env: dict[str, str], tmp_path: Path, typo: str, meant: str
) -> None:
    deploy_env["CDK_DEFAULT_REGION"] = typo
    with pytest.raises(UnknownRegionError) as caught:
        build_app(CDK_JSON_CONTEXT, outdir=str(tmp_path))
    message = str(caught.value)
    assert f"{typo!r}" in message and f"did you mean {meant}?" in message
    assert REGIONS_CHECKED in message and "allow_undocumented_region=true" in message


def test_a_region_like_no_other_gets_no_guess(deploy_env: dict[str, str], tmp_path: Path) -> None:
    deploy_env["CDK_DEFAULT_REGION"] = "mars-north-1"
    with pytest.raises(UnknownRegionError) as caught:
        build_app(CDK_JSON_CONTEXT, outdir=str(tmp_path))
    assert "did you mean" not in str(caught.value)
    assert closest_regions("mars-north-1") == []


def test_the_override_lets_a_region_opened_since_through() -> None:
    node = App(context={"allow_undocumented_region": "true"}).node
    assert load_config(node, "xx-newregion-1").allow_undocumented_region


# A commercial region whose AgentCore Runtime is neither documented (AGENTCORE_RUNTIME) nor
# in the resource types aws-cdk-lib 2.275.0 lists for it.
NO_AGENTCORE = "ap-southeast-3"


def _report(outdir: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((outdir / "validation-report.json").read_text())
    return report


def test_a_region_without_agentcore_fails_synth_on_cloudformations_type_list(
    deploy_env: dict[str, str], tmp_path: Path
) -> None:
    assert NO_AGENTCORE not in AGENTCORE_RUNTIME.regions
    deploy_env["CDK_DEFAULT_REGION"] = NO_AGENTCORE
    app = build_app(CDK_JSON_CONTEXT, outdir=str(tmp_path))
    assert any("AgentCore Runtime" in w for w in _warnings(app, AGENT))
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    reports = {p["pluginName"]: p for p in _report(tmp_path)["pluginReports"]}
    (missing,) = reports["CloudFormation Validate"]["violations"]
    assert missing["ruleName"] == CFN_TYPE_NOT_IN_REGION.split("::")[1]
    assert (
        f"'AWS::BedrockAgentCore::Runtime' does not exist in '{NO_AGENTCORE}'"
        in (missing["description"])
    )


def test_the_override_synthesizes_a_region_without_agentcore(
    deploy_env: dict[str, str], tmp_path: Path
) -> None:
    deploy_env["CDK_DEFAULT_REGION"] = NO_AGENTCORE
    context = {**CDK_JSON_CONTEXT, "allow_undocumented_region": "true"}
    app = build_app(context, outdir=str(tmp_path))
    assembly = app.synth()  # the type check is acknowledged, nothing else is
    assert _warnings(app, AGENT) == []
    agent = assembly.get_stack_by_name(AGENT).template
    assert any(r["Type"] == "AWS::BedrockAgentCore::Runtime" for r in agent["Resources"].values())
    assert assembly.get_stack_by_name(AGENT).environment.region == NO_AGENTCORE


def test_the_scaling_target_must_be_below_the_session_limit() -> None:
    """Scaling tracks sessions per instance: it must start before an instance refuses."""
    app = App(context={"target_concurrency_per_instance": 12, "max_sessions_per_instance": 16})
    config = load_config(app.node)
    assert (config.target_concurrency_per_instance, config.max_sessions_per_instance) == (12, 16)
    for target, limit in ((16, 16), (40, 32)):
        app = App(
            context={"target_concurrency_per_instance": target, "max_sessions_per_instance": limit}
        )
        with pytest.raises(ConfigError, match="must be below max_sessions_per_instance"):
            load_config(app.node)

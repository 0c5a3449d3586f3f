"""IAM least privilege in both stacks, trust policies, and the AgentCore runtime."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.cdk_synth import AGENT, PLAIN_MODEL_ID, TTS, Synthesized

pytestmark = pytest.mark.synth


def _statements(template: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for logical_id, res in template["Resources"].items():
        props = res.get("Properties", {})
        docs = []
        if res["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            docs.append(props["PolicyDocument"])
        if res["Type"] == "AWS::IAM::Role":
            docs += [p["PolicyDocument"] for p in props.get("Policies", [])]
        for doc in docs:
            for statement in doc["Statement"]:
                yield logical_id, statement


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _role(synthesized: Synthesized, stack: str, fragment: str) -> dict[str, Any]:
    roles = {
        k: v for k, v in synthesized.resources(stack, "AWS::IAM::Role").items() if fragment in k
    }
    assert len(roles) == 1, list(roles)
    return next(iter(roles.values()))


def _policy_of(synthesized: Synthesized, stack: str, fragment: str) -> list[dict[str, Any]]:
    return [
        s for logical_id, s in _statements(synthesized.templates[stack]) if fragment in logical_id
    ]


def test_no_wildcard_action_anywhere(synthesized: Synthesized) -> None:
    seen = 0
    for stack in (TTS, AGENT):
        for logical_id, statement in _statements(synthesized.templates[stack]):
            assert "NotAction" not in statement, logical_id
            for action in _as_list(statement["Action"]):
                seen += 1
                assert "*" not in action, f"{stack}/{logical_id} allows wildcard action {action}"
    assert seen > 20  # the check looked at the real policies


def test_sagemaker_execution_role_trust_and_scope(synthesized: Synthesized) -> None:
    role = _role(synthesized, TTS, "TtsExecutionRole")
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}
    statements = _policy_of(synthesized, TTS, "TtsExecutionRoleDefaultPolicy")
    by_action = {json.dumps(_as_list(s["Action"])): s for s in statements}
    read = by_action['["s3:GetObject"]']
    assert "/kokoro/kokoro-82m-v1.0-onnx-fp32/*" in json.dumps(read["Resource"])
    logs = by_action[
        '["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", '
        '"logs:DescribeLogStreams"]'
    ]
    text = json.dumps(logs["Resource"])
    assert text.count("log-group:/aws/sagemaker/Endpoints/kokoro-voice-tts") == 2  # group, streams
    pull = by_action[
        '["ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"]'
    ]
    assert "container-assets" in json.dumps(pull["Resource"])
    # The only '*' resources are the calls IAM cannot scope; metrics only by namespace.
    star = {json.dumps(s["Action"]): s for s in statements if s["Resource"] == "*"}
    assert set(star) == {'"ecr:GetAuthorizationToken"', '"cloudwatch:PutMetricData"'}
    assert star['"cloudwatch:PutMetricData"']["Condition"] == {
        "StringEquals": {"cloudwatch:namespace": "/aws/sagemaker/Endpoints"}
    }


def test_weights_handler_writes_only_under_kokoro_prefix(synthesized: Synthesized) -> None:
    statements = _policy_of(synthesized, TTS, "WeightsHandlerRoleDefaultPolicy")
    s3_statements = [s for s in statements if str(_as_list(s["Action"])[0]).startswith("s3:")]
    for statement in s3_statements:
        text = json.dumps(statement)
        assert "kokoro/*" in text, statement
        assert "s3:DeleteObject" not in text


def test_agentcore_role_trust_has_confused_deputy_conditions(synthesized: Synthesized) -> None:
    role = _role(synthesized, AGENT, "ExecutionRole")
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert ":bedrock-agentcore:" in json.dumps(trust["Condition"]["ArnLike"]["aws:SourceArn"])


def test_agent_invokes_only_the_one_endpoint(synthesized: Synthesized) -> None:
    statements = _policy_of(synthesized, AGENT, "ExecutionRoleDefaultPolicy")
    sagemaker = [s for s in statements if "sagemaker:" in json.dumps(s["Action"])]
    assert len(sagemaker) == 1
    (statement,) = sagemaker
    assert sorted(_as_list(statement["Action"])) == [
        "sagemaker:InvokeEndpoint",
        "sagemaker:InvokeEndpointWithBidirectionalStream",
    ]
    (resource,) = _as_list(statement["Resource"])
    assert json.dumps(resource).endswith(':endpoint/kokoro-voice-tts"]]}')


PROFILE_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
MODEL_ID = PLAIN_MODEL_ID  # the foundation model behind the default profile


def _bedrock_statements(synthesized: Synthesized) -> list[dict[str, Any]]:
    statements = _policy_of(synthesized, AGENT, "ExecutionRoleDefaultPolicy")
    return [s for s in statements if "bedrock:" in json.dumps(s["Action"])]


def test_agent_bedrock_profile_statement_names_the_one_profile(synthesized: Synthesized) -> None:
    (profile,) = [s for s in _bedrock_statements(synthesized) if "Condition" not in s]
    assert sorted(_as_list(profile["Action"])) == [
        "bedrock:InvokeModel",
        "bedrock:InvokeModelWithResponseStream",
    ]
    (resource,) = _as_list(profile["Resource"])
    # In this stack's own account and region: that is where a system profile's ARN lives.
    assert resource == {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":bedrock:",
                {"Ref": "AWS::Region"},
                ":",
                {"Ref": "AWS::AccountId"},
                f":inference-profile/{PROFILE_ID}",
            ],
        ]
    }


def test_agent_foundation_model_any_region_only_through_the_profile(
    synthesized: Synthesized,
) -> None:
    statements = _bedrock_statements(synthesized)
    (profile,) = [s for s in statements if "Condition" not in s]
    (model,) = [s for s in statements if "Condition" in s]
    assert sorted(_as_list(model["Action"])) == sorted(_as_list(profile["Action"]))
    # No destination region is typed into the policy: any region, this one model only ...
    (resource,) = _as_list(model["Resource"])
    assert resource == {
        "Fn::Join": [
            "",
            ["arn:", {"Ref": "AWS::Partition"}, f":bedrock:*::foundation-model/{MODEL_ID}"],
        ]
    }
    # ... and only when the call comes through the configured profile.
    assert model["Condition"] == {
        "StringEquals": {"bedrock:InferenceProfileArn": profile["Resource"]}
    }


def test_plain_model_id_gets_the_model_in_the_stack_region_only(variant: Synthesized) -> None:
    statements = [
        s
        for logical_id, s in _statements(variant.templates[AGENT])
        if "ExecutionRoleDefaultPolicy" in logical_id and "bedrock:" in json.dumps(s["Action"])
    ]
    (statement,) = statements
    assert "Condition" not in statement
    (resource,) = _as_list(statement["Resource"])
    text = json.dumps(resource)
    assert '{"Ref": "AWS::Region"}' in text and f"::foundation-model/{PLAIN_MODEL_ID}" in text
    assert "inference-profile" not in text


def test_agent_runtime(synthesized: Synthesized) -> None:
    runtime = synthesized.only(AGENT, "AWS::BedrockAgentCore::Runtime")["Properties"]
    assert runtime["AgentRuntimeName"] == "kokoro_voice_agent"
    assert runtime["EnvironmentVariables"] == {
        "AWS_REGION": {"Ref": "AWS::Region"},
        "AWS_DEFAULT_REGION": {"Ref": "AWS::Region"},
        "TTS_ENDPOINT_NAME": "kokoro-voice-tts",
        "TTS_VOICE": "af_heart",
        "TTS_PAUSED": "false",
        "BEDROCK_MODEL_ID": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    }
    # IAM (SigV4) auth is the service default: no JWT/OAuth authorizer configured.
    assert "AuthorizerConfiguration" not in runtime
    assert runtime["ProtocolConfiguration"] == "HTTP"
    assert runtime["RoleArn"]["Fn::GetAtt"][0].startswith("VoiceAgentExecutionRole")
    assert "RuntimeArn" in synthesized.templates[AGENT]["Outputs"]


def test_agent_stack_shares_no_exports_with_tts_stack(synthesized: Synthesized) -> None:
    assert "Fn::ImportValue" not in json.dumps(synthesized.templates[AGENT])
    for output in synthesized.templates[TTS].get("Outputs", {}).values():
        assert "Export" not in output


def test_every_taggable_resource_carries_the_app_tag(synthesized: Synthesized) -> None:
    must_be_tagged = {
        "AWS::S3::Bucket",
        "AWS::IAM::Role",
        "AWS::Lambda::Function",
        "AWS::Logs::LogGroup",
        "AWS::SageMaker::Model",
        "AWS::SageMaker::EndpointConfig",
        "AWS::SageMaker::Endpoint",
        "AWS::ApplicationAutoScaling::ScalableTarget",
        "AWS::CloudWatch::Alarm",
        "AWS::BedrockAgentCore::Runtime",
    }
    seen: set[str] = set()
    for stack in (TTS, AGENT):
        for logical_id, res in synthesized.templates[stack]["Resources"].items():
            tags = res.get("Properties", {}).get("Tags")
            if res["Type"] in must_be_tagged:
                assert tags is not None, f"{stack}/{logical_id} has no tags"
            if tags is None:
                continue
            seen.add(res["Type"])
            values = tags if isinstance(tags, dict) else {t["Key"]: t["Value"] for t in tags}
            assert values.get("app") == "kokoro-voice", f"{stack}/{logical_id}: {tags}"
    assert must_be_tagged <= seen

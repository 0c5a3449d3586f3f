"""Operating the deployed voice: the alarm topic, who is told, the dashboard, the log metric
filters' log groups, and how an endpoint update rolls out (real synth)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stacks.app_builder import build_app
from tests.support.cdk_synth import AGENT, TTS, Synthesized

pytestmark = pytest.mark.synth


def _ref(logical_id: str) -> dict[str, str]:
    return {"Ref": logical_id}


def test_every_alarm_tells_the_topic_when_it_fires_and_when_it_clears(
    deployed: Synthesized,
) -> None:
    (topic_id,) = deployed.resources(TTS, "AWS::SNS::Topic")
    alarms = deployed.resources(TTS, "AWS::CloudWatch::Alarm")
    assert len(alarms) == 4
    for logical_id, alarm in alarms.items():
        props = alarm["Properties"]
        assert props["AlarmActions"] == [_ref(topic_id)], logical_id
        assert props["OKActions"] == [_ref(topic_id)], logical_id
    assert deployed.templates[AGENT]["Resources"].keys().isdisjoint(alarms)


def test_the_topic_is_encrypted_with_a_key_cloudwatch_may_use(deployed: Synthesized) -> None:
    topic = deployed.only(TTS, "AWS::SNS::Topic")["Properties"]
    (key_id,) = deployed.resources(TTS, "AWS::KMS::Key")
    key = deployed.templates[TTS]["Resources"][key_id]
    assert topic["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    assert key["Properties"]["EnableKeyRotation"] is True
    # Deleted with the stack: a key pending deletion is not billed (7 days, the minimum).
    assert key["DeletionPolicy"] == "Delete" and key["Properties"]["PendingWindowInDays"] == 7
    alarms_here = f"arn:aws:cloudwatch:{deployed.region}:123456789012:alarm:*"
    conditions = {
        "StringEquals": {"aws:SourceAccount": "123456789012"},
        "ArnLike": {"aws:SourceArn": alarms_here},
    }
    (for_cloudwatch,) = [
        s
        for s in key["Properties"]["KeyPolicy"]["Statement"]
        if s["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert sorted(for_cloudwatch["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey*"]
    assert for_cloudwatch["Condition"] == conditions
    statements = deployed.only(TTS, "AWS::SNS::TopicPolicy")["Properties"]["PolicyDocument"]
    by_effect = {s["Effect"]: s for s in statements["Statement"]}
    assert by_effect["Deny"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert by_effect["Allow"]["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert by_effect["Allow"]["Action"] == "sns:Publish"
    assert by_effect["Allow"]["Condition"] == conditions


def test_alarm_email_subscribes_it_and_none_is_the_default(
    synthesized: Synthesized, tmp_path: Path
) -> None:
    assert synthesized.resources(TTS, "AWS::SNS::Subscription") == {}
    app = build_app({"alarm_email": "ops@example.com"}, outdir=str(tmp_path))
    template = app.synth().get_stack_by_name(TTS).template
    (subscription,) = [
        r for r in template["Resources"].values() if r["Type"] == "AWS::SNS::Subscription"
    ]
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "ops@example.com"


def test_alarm_limits_come_from_the_context(tmp_path: Path) -> None:
    context = {"first_sound_alarm_p95_ms": "900", "refusal_alarm_minutes": "10"}
    template = build_app(context, outdir=str(tmp_path)).synth().get_stack_by_name(TTS).template
    stats = {}
    for res in template["Resources"].values():
        if res["Type"] == "AWS::CloudWatch::Alarm" and "Metrics" in res["Properties"]:
            (query,) = res["Properties"]["Metrics"]
            stats[query["MetricStat"]["Metric"]["MetricName"]] = (
                query["MetricStat"]["Period"],
                res["Properties"]["Threshold"],
            )
    assert stats == {"ServerFirstSoundMs": (60, 900), "SessionsRefused": (600, 1)}


def test_updates_roll_out_blue_green_and_roll_back_on_any_alarm(deployed: Synthesized) -> None:
    endpoint = deployed.only(TTS, "AWS::SageMaker::Endpoint")["Properties"]
    config = endpoint["DeploymentConfig"]
    alarms = set(deployed.resources(TTS, "AWS::CloudWatch::Alarm"))
    rollback = {a["AlarmName"]["Ref"] for a in config["AutoRollbackConfiguration"]["Alarms"]}
    assert rollback == alarms
    policy = config["BlueGreenUpdatePolicy"]
    assert policy["TrafficRoutingConfiguration"] == {
        "Type": "ALL_AT_ONCE",
        "WaitIntervalInSeconds": 600,  # the baking period
    }
    assert policy["TerminationWaitInSeconds"] == 300
    waits = 600 + 300
    assert waits < policy["MaximumExecutionTimeoutInSeconds"] <= 28800


def test_the_rollout_waits_come_from_the_context(tmp_path: Path) -> None:
    context = {"deployment_baking_s": "120", "deployment_termination_wait_s": "0"}
    template = build_app(context, outdir=str(tmp_path)).synth().get_stack_by_name(TTS).template
    (endpoint,) = [
        r for r in template["Resources"].values() if r["Type"] == "AWS::SageMaker::Endpoint"
    ]
    policy = endpoint["Properties"]["DeploymentConfig"]["BlueGreenUpdatePolicy"]
    assert policy["TrafficRoutingConfiguration"]["WaitIntervalInSeconds"] == 120
    assert policy["TerminationWaitInSeconds"] == 0


def _joined(value: Any) -> str:
    """A template string: Fn::Join parts concatenated, other tokens as <token>."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return str(separator).join(_joined(part) for part in parts)
    return "<token>"


def test_the_dashboard_shows_what_scaling_and_the_alarm_track(deployed: Synthesized) -> None:
    dashboard = deployed.only(TTS, "AWS::CloudWatch::Dashboard")["Properties"]
    assert _joined(dashboard["DashboardName"]) == f"kokoro-voice-{deployed.region}"
    body = json.loads(_joined(dashboard["DashboardBody"]))
    widgets = {w["properties"].get("title"): w["properties"] for w in body["widgets"]}
    concurrency = widgets["Concurrent streams per instance (what autoscaling tracks)"]
    names = {m[1] for m in concurrency["metrics"]}
    assert names == {"ConcurrentRequestsPerModel"}
    (target,) = concurrency["annotations"]["horizontal"]
    policy = deployed.only(TTS, "AWS::ApplicationAutoScaling::ScalingPolicy")["Properties"]
    tracked = policy["TargetTrackingScalingPolicyConfiguration"]["TargetValue"]
    assert target["value"] == tracked  # the line is the target the policy tracks
    first_sound = widgets["Time to first sound (ms)"]
    assert first_sound["annotations"]["horizontal"][0]["value"] == 1500
    shown = {m[1] for w in widgets.values() for m in w.get("metrics", [])}
    assert {
        "ServerFirstSoundMs",
        "AgentFirstSoundMs",
        "SessionsRefused",
        "SentencesNotSpoken",
        "SentencesPreempted",
        "SessionsStalled",
        "ModelRtf",
        "Invocations",
        "CPUUtilization",
        "GPUUtilization",
    } <= shown
    assert len(widgets["Alarms"]["alarms"]) == 4
    queries = [w for w in widgets.values() if "query" in w]
    assert queries and all(
        "/aws/sagemaker/Endpoints/kokoro-voice-tts" in w["query"] for w in queries
    )
    url = deployed.templates[TTS]["Outputs"]["DashboardUrl"]["Value"]
    assert _joined(url).endswith(f"#dashboards:name=kokoro-voice-{deployed.region}")


def test_metric_filters_wait_for_the_log_group_they_read(deployed: Synthesized) -> None:
    for stack, prefix in ((TTS, "/aws/sagemaker/Endpoints/kokoro-voice-tts"), (AGENT, None)):
        (retention_id,) = deployed.resources(stack, "Custom::LogRetention")
        retention = deployed.templates[stack]["Resources"][retention_id]["Properties"]
        filters = deployed.resources(stack, "AWS::Logs::MetricFilter")
        assert filters
        for logical_id, metric_filter in filters.items():
            assert retention_id in metric_filter["DependsOn"], logical_id
            assert metric_filter["Properties"]["LogGroupName"] == retention["LogGroupName"]
        if prefix:
            assert retention["LogGroupName"] == prefix
    agent_group = _joined(
        deployed.only(AGENT, "Custom::LogRetention")["Properties"]["LogGroupName"]
    )
    # AgentCore's runtime stdout group (the aws-cdk-lib Runtime names it the same way).
    assert agent_group == "/aws/bedrock-agentcore/runtimes/<token>-DEFAULT"
    assert deployed.only(AGENT, "Custom::LogRetention")["Properties"]["RetentionInDays"] == 30


def test_paused_keeps_the_topic_filters_and_dashboard(paused: Synthesized) -> None:
    types = {r["Type"] for r in paused.templates[TTS]["Resources"].values()}
    assert {"AWS::SNS::Topic", "AWS::Logs::MetricFilter", "AWS::CloudWatch::Dashboard"} <= types
    assert "AWS::CloudWatch::Alarm" not in types
    body = _joined(paused.only(TTS, "AWS::CloudWatch::Dashboard")["Properties"]["DashboardBody"])
    assert '"title":"Alarms"' not in body

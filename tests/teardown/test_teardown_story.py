"""The whole story against moto: deployed, destroyed (leftovers remain), cleaned."""

from __future__ import annotations

import io

import boto3
import pytest

from teardown.cli import EXIT_CLEAN, EXIT_LEFTOVERS, main
from tests.support import teardown_world as tw
from tests.support.teardown_world import flagged, run_json


def test_keep_weights_bucket_deletes_everything_else(world, capsys):
    argv = [*world.argv, "--delete", "--yes", "--keep-weights-bucket"]
    code, report = run_json(capsys, argv)

    assert report["deletion"]["errors"] == []
    assert len(report["deletion"]["deleted"]) == len(world.expected) - 1
    [bucket] = report["findings"]
    assert (bucket["name"], bucket["deletable"]) == (world.weights_bucket, False)
    assert "kept by --keep-weights-bucket" in bucket["note"]
    assert code == EXIT_LEFTOVERS  # still there, still billing: not "clean"
    versions = boto3.client("s3", region_name=tw.REGION).list_object_versions(
        Bucket=world.weights_bucket
    )
    assert len(versions["Versions"]) + len(versions["DeleteMarkers"]) == 9


def test_delete_yes_removes_only_the_app_and_second_run_is_clean(world, capsys):
    agent_digest = next(d for d, t in tw.image_tags(tw.BOOTSTRAP_REPO).items() if tw.AGENT_TAG in t)

    code, report = run_json(capsys, [*world.argv, "--delete", "--yes"])

    assert report["deletion"]["errors"] == []
    assert len(report["deletion"]["deleted"]) == len(world.expected)
    assert flagged(report["before"]) == world.expected
    assert report["findings"] == [] and report["clean"] is True
    assert code == EXIT_CLEAN

    # A second run reports nothing left.
    code, again = run_json(capsys, world.argv)
    assert code == EXIT_CLEAN and again["findings"] == []

    # Everything that was not this app's is untouched.
    s3 = boto3.client("s3", region_name=tw.REGION)
    names = {b["Name"] for b in s3.list_buckets()["Buckets"]}
    assert world.weights_bucket not in names
    assert {world.lookalike_bucket, world.other_app_bucket, "kokoro-voice-weights-euwest1"} <= names
    assert s3.get_object(Bucket=world.lookalike_bucket, Key="kokoro-v1.0.onnx")["Body"].read() == (
        b"keep me"
    )

    remaining = tw.image_tags(tw.BOOTSTRAP_REPO)
    all_tags = {t for tags in remaining.values() for t in tags}
    assert tw.TTS_TAG not in all_tags and tw.AGENT_TAG not in all_tags
    assert tw.FOREIGN_TAG in all_tags
    # The digest another app shares survives with only that app's tag.
    assert remaining[agent_digest] == [tw.FOREIGN_SAME_DIGEST_TAG]

    ecr = boto3.client("ecr", region_name=tw.REGION)
    repos = {r["repositoryName"] for r in ecr.describe_repositories()["repositories"]}
    assert world.tagged_repo not in repos
    assert {world.foreign_repo, tw.BOOTSTRAP_REPO} <= repos

    sm = boto3.client("sagemaker", region_name=tw.REGION)
    assert sm.list_endpoints()["Endpoints"] == []
    assert sm.list_endpoint_configs()["EndpointConfigs"] == []
    assert [m["ModelName"] for m in sm.list_models()["Models"]] == [world.foreign_model]

    control = boto3.client("bedrock-agentcore-control", region_name=tw.REGION)
    runtimes = [r["agentRuntimeId"] for r in control.list_agent_runtimes()["agentRuntimes"]]
    assert runtimes == [world.foreign_runtime_id]

    logs = boto3.client("logs", region_name=tw.REGION)
    groups = {g["logGroupName"] for g in logs.describe_log_groups()["logGroups"]}
    assert groups == set(world.foreign_log_groups)

    cfn = boto3.client("cloudformation", region_name=tw.REGION)
    stacks = {s["StackName"] for s in cfn.describe_stacks()["Stacks"]}
    assert stacks == {"CDKToolkit", "KokoroVoice2-Tts"}


def test_delete_prints_progress_while_emptying_the_bucket(world, capsys, monkeypatch):
    monkeypatch.setattr("teardown.delete.S3_BATCH", 3)  # several batches from a small bucket
    code = main([*world.argv, "--delete", "--yes"])
    captured = capsys.readouterr()

    assert code == EXIT_CLEAN
    assert f"emptying s3://{world.weights_bucket} (9 versions and delete markers)" in captured.err
    for done in (3, 6, 9):
        assert f"s3://{world.weights_bucket}: {done}/9 versions and markers deleted" in captured.err
    assert "After deletion:" in captured.out
    assert "Result: nothing left, every service checked (exit 0)." in captured.out


@pytest.mark.parametrize("answer", ["kokoro-voice\n", "yes\n"])
def test_typed_confirmation_deletes(world, capsys, monkeypatch, answer):
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    assert main([*world.argv, "--delete"]) == EXIT_CLEAN

"""Which resources count as the app's: stacks, shared-repository images, regions, re-runs."""

from __future__ import annotations

import json

import boto3
import teardown_world as tw
from conftest import flagged, run_json

from teardown.cli import EXIT_CLEAN, EXIT_LEFTOVERS, EXIT_UNCHECKED, build_parser, build_scope
from teardown.delete import delete_findings
from teardown.inventory import run_inventory

TEMPLATE = json.dumps({"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}})


def test_untagged_stack_named_like_the_app_is_flagged_but_never_deleted(mocked, tmp_path, capsys):
    tw.write_app_dir(tmp_path)
    cfn = boto3.client("cloudformation", region_name=tw.REGION)
    cfn.create_stack(StackName="KokoroVoice-Tts", TemplateBody=TEMPLATE)  # no tags

    code, report = run_json(capsys, ["--app-dir", str(tmp_path), "--delete", "--yes"])

    assert code == EXIT_LEFTOVERS
    [stack] = report["findings"]
    assert (stack["name"], stack["status"], stack["deletable"]) == (
        "KokoroVoice-Tts",
        "CREATE_COMPLETE",
        False,
    )
    assert "not tagged app=kokoro-voice" in stack["note"]
    assert [s["StackName"] for s in cfn.describe_stacks()["Stacks"]] == ["KokoroVoice-Tts"]


def test_explicit_stack_option_checks_and_deletes_only_those(mocked, tmp_path, capsys):
    tw.write_app_dir(tmp_path)
    cfn = boto3.client("cloudformation", region_name=tw.REGION)
    cfn.create_stack(StackName="Legacy-Voice", TemplateBody=TEMPLATE)
    cfn.create_stack(StackName="KokoroVoice-Agent", TemplateBody=TEMPLATE, Tags=tw.APP_TAGS)
    argv = ["--app-dir", str(tmp_path), "--stack", "Legacy-Voice", "--stack", "Gone-Already"]

    code, report = run_json(capsys, argv)
    assert code == EXIT_LEFTOVERS
    assert flagged(report) == {("stack", "Legacy-Voice")}

    code, report = run_json(capsys, [*argv, "--delete", "--yes"])
    assert code == EXIT_CLEAN
    assert [s["StackName"] for s in cfn.describe_stacks()["Stacks"]] == ["KokoroVoice-Agent"]


def test_shared_repository_without_known_tags_is_unchecked(mocked, tmp_path, capsys):
    ecr = boto3.client("ecr", region_name=tw.REGION)
    ecr.create_repository(repositoryName=tw.BOOTSTRAP_REPO)
    ecr.put_image(
        repositoryName=tw.BOOTSTRAP_REPO,
        imageManifest=tw.image_manifest("x"),
        imageTag=tw.TTS_TAG,
    )

    code, report = run_json(capsys, ["--app-dir", str(tmp_path)])
    assert code == EXIT_UNCHECKED
    assert "npx cdk synth" in report["services"]["ecr"]["reasons"][0]

    # Naming the tag explicitly identifies the image.
    code, report = run_json(capsys, ["--app-dir", str(tmp_path), "--image-tag", tw.TTS_TAG])
    assert code == EXIT_LEFTOVERS
    [image] = report["findings"]
    assert image["ref"]["tags"] == [tw.TTS_TAG]


def test_image_tags_with_the_bootstrap_repository_missing_are_unchecked(mocked, tmp_path, capsys):
    """The account was bootstrapped with another qualifier that cdk.json does not name: the
    repository the tags are looked up in does not exist, so nothing is known, not clean."""
    other = tw.BOOTSTRAP_REPO.replace("-container-assets-", "x-container-assets-")
    ecr = boto3.client("ecr", region_name=tw.REGION)
    ecr.create_repository(repositoryName=other)
    ecr.put_image(repositoryName=other, imageManifest=tw.image_manifest("x"), imageTag=tw.TTS_TAG)

    code, report = run_json(capsys, ["--app-dir", str(tmp_path), "--image-tag", tw.TTS_TAG])

    assert code == EXIT_UNCHECKED
    [reason] = report["services"]["ecr"]["reasons"]
    assert f"{tw.BOOTSTRAP_REPO} does not exist" in reason
    assert other in reason and "@aws-cdk/core:bootstrapQualifier" in reason


def test_no_bootstrap_repository_at_all_is_clean(mocked, tmp_path, capsys):
    code, report = run_json(capsys, ["--app-dir", str(tmp_path), "--image-tag", tw.TTS_TAG])
    assert code == EXIT_CLEAN
    assert report["services"]["ecr"]["status"] == "CHECKED"


def test_region_option_scans_that_region_only(world, capsys):
    code, report = run_json(capsys, ["--app-dir", str(world.app_dir), "--region", "eu-west-1"])
    assert code == EXIT_LEFTOVERS
    assert flagged(report) == {("bucket", "kokoro-voice-weights-euwest1")}
    assert report["region"] == "eu-west-1"


def test_other_app_name_sees_nothing_of_this_app(world, capsys, tmp_path):
    # Another app with its own (image-less) cloud assembly: tags decide, nothing matches.
    (tmp_path / "other.out").mkdir()
    argv = ["--app-dir", str(world.app_dir), "--app-name", "nobody"]
    code, report = run_json(capsys, [*argv, "--cdk-out", str(tmp_path / "other.out")])
    assert report["findings"] == []
    # Its images in the shared repository cannot be told apart without tags: said so.
    assert code == EXIT_UNCHECKED
    unchecked = {k for k, v in report["services"].items() if v["status"] == "UNCHECKED"}
    assert unchecked == {"ecr"}


def test_delete_is_idempotent_when_things_vanish_midway(world):
    """Deleting findings that are already gone (a second run, or another operator racing
    this one) counts them as done instead of failing."""
    args = build_parser().parse_args(["--app-dir", str(world.app_dir)])
    scope = build_scope(args)
    scope.progress = lambda _message: None
    findings = run_inventory(scope).findings

    first = delete_findings(scope, findings)
    second = delete_findings(scope, findings)

    assert first.errors == [] and second.errors == []
    assert len(second.deleted) == len(findings)
    gone = [d for d in second.deleted if d.endswith("(already gone)")]
    assert len(gone) == len(findings)
    assert run_inventory(scope).clean

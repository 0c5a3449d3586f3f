"""`python -m teardown` as its own process against a moto server, configured the way a user's
shell is: fake keys, AWS_ENDPOINT_URL, and only AWS_REGION for the region (no
AWS_DEFAULT_REGION, no AWS config files, an empty HOME)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import botocore.configprovider
import pytest

from teardown.cli import EXIT_CLEAN, EXIT_LEFTOVERS, EXIT_UNCHECKED
from tests.support import teardown_world as tw
from tests.support.moto_server import cli_env, run_cli
from tests.support.teardown_world import flagged

pytestmark = pytest.mark.slow  # the cleanup CLI as its own process against moto's server


def _env(url: str, tmp_path: Path) -> dict[str, str]:
    return cli_env(url, tmp_path / "home", AWS_REGION=tw.REGION)


def _json(stdout: str) -> dict:
    return json.loads(stdout)


def test_installed_botocore_honours_aws_endpoint_url_and_not_aws_region():
    """What these tests (and the CLI's region handling) rely on, asked of botocore itself: every
    client takes its endpoint from AWS_ENDPOINT_URL, and botocore's own region variable is
    AWS_DEFAULT_REGION only, which is why the CLI reads AWS_REGION itself."""
    for service in ("sts", "s3", "ecr", "bedrock-agentcore-control", "resourcegroupstaggingapi"):
        provider = botocore.configprovider.ConfiguredEndpointProvider(
            {}, {}, service, environ={"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}
        )
        assert provider.provide() == "http://127.0.0.1:9"
    region = botocore.configprovider.BOTOCORE_DEFAUT_SESSION_VARIABLES["region"]
    assert region[1] == "AWS_DEFAULT_REGION"


def test_image_tags_without_cdk_out_find_the_images_in_the_cdk_default_repository(
    server_world, server_url, tmp_path
):
    shutil.rmtree(server_world.app_dir / "cdk.out")
    argv = ["--app-dir", str(server_world.app_dir), "--json"]
    tags = ["--image-tag", tw.TTS_TAG, "--image-tag", tw.AGENT_TAG]

    proc = run_cli([*argv, *tags], _env(server_url, tmp_path))

    assert proc.returncode == EXIT_LEFTOVERS, proc.stderr
    report = _json(proc.stdout)
    assert report["region"] == tw.REGION
    assert report["services"]["ecr"] == {"status": "CHECKED", "reasons": []}
    images = [f for f in report["findings"] if f["kind"] == "image"]
    assert {tag for f in images for tag in f["ref"]["tags"]} == {tw.TTS_TAG, tw.AGENT_TAG}
    assert {f["ref"]["repository"] for f in images} == {tw.BOOTSTRAP_REPO}
    assert flagged(report) == server_world.expected


def test_without_cdk_out_or_image_tags_ecr_is_unchecked(server_world, server_url, tmp_path):
    shutil.rmtree(server_world.app_dir / "cdk.out")
    proc = run_cli(["--app-dir", str(server_world.app_dir), "--json"], _env(server_url, tmp_path))

    assert proc.returncode == EXIT_UNCHECKED, proc.stderr
    ecr = _json(proc.stdout)["services"]["ecr"]
    assert ecr["status"] == "UNCHECKED"
    assert tw.BOOTSTRAP_REPO in ecr["reasons"][0]


def test_dry_run_delete_and_recheck_as_a_user_runs_them(server_world, server_url, tmp_path):
    env = _env(server_url, tmp_path)
    argv = ["--app-dir", str(server_world.app_dir)]

    dry = run_cli(argv, env)
    assert dry.returncode == EXIT_LEFTOVERS, dry.stderr
    assert f"region {tw.REGION}" in dry.stdout
    assert f"-c weights_bucket={server_world.weights_bucket}" in dry.stdout

    delete = run_cli([*argv, "--delete", "--yes"], env)
    assert delete.returncode == EXIT_CLEAN, delete.stderr
    assert f"emptying s3://{server_world.weights_bucket}" in delete.stderr
    assert "Result: nothing left, every service checked (exit 0)." in delete.stdout

    again = run_cli(argv, env)
    assert again.returncode == EXIT_CLEAN, again.stderr
    assert "Nothing of this app was found." in again.stdout

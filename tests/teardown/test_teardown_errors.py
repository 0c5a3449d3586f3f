"""Failure modes: access denied, missing credentials, bad region and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from botocore.awsrequest import AWSResponse

from teardown import aws, cli
from teardown.cli import EXIT_UNCHECKED, EXIT_USAGE, main
from tests.support import teardown_world as tw
from tests.support.teardown_world import flagged, run_json

REPO_ROOT = Path(__file__).resolve().parents[2]


class _CannedBody:
    """Raw HTTP body for botocore's AWSResponse."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: object):
        yield self._body


# What AWS sends back when a permission is missing, in each protocol's error format.
DENIALS = {
    "sagemaker": (
        {"Content-Type": "application/x-amz-json-1.1"},
        json.dumps(
            {"__type": "AccessDeniedException", "Message": "not authorized: sagemaker:List*"}
        ).encode(),
    ),
    "s3": (
        {"Content-Type": "application/xml"},
        b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>AccessDenied</Code>"
        b"<Message>Access Denied</Message></Error>",
    ),
}


def deny_service(monkeypatch: pytest.MonkeyPatch, service: str, url_part: str = "") -> None:
    """Test double for a missing IAM permission: requests to ``service`` (only those whose
    URL contains ``url_part``, if given) get AWS's canned 403 response at the HTTP layer,
    parsed by botocore like the real one; other requests go on to moto."""
    headers, body = DENIALS[service]

    def handler(request, **_: object) -> AWSResponse | None:
        if url_part not in request.url:
            return None
        return AWSResponse(request.url, 403, headers, _CannedBody(body))

    def make_session(profile: str | None) -> boto3.Session:
        session = aws.make_session(profile)
        session.events.register_first(f"before-send.{service}", handler)
        return session

    monkeypatch.setattr(cli, "make_session", make_session)


@pytest.mark.parametrize("service", ["sagemaker", "s3"])
def test_access_denied_service_is_unchecked_not_clean(world, capsys, monkeypatch, service):
    deny_service(monkeypatch, service)
    code, report = run_json(capsys, ["--app-dir", str(world.app_dir)])

    assert code == EXIT_UNCHECKED
    assert report["clean"] is False
    denied = report["services"][service]
    assert denied["status"] == "UNCHECKED"
    assert "access denied" in denied["reasons"][0]
    others = {k: v["status"] for k, v in report["services"].items() if k != service}
    assert set(others.values()) == {"CHECKED"}
    # The services it could read are still reported.
    kinds = {kind for kind, _ in flagged(report)}
    assert "image" in kinds and "agent-runtime" in kinds


def test_one_unreadable_bucket_is_unchecked_and_the_rest_still_scanned(world, capsys, monkeypatch):
    deny_service(monkeypatch, "s3", url_part=f"{world.lookalike_bucket}.s3.amazonaws.com/?tagging")
    code, report = run_json(capsys, ["--app-dir", str(world.app_dir)])

    assert code == EXIT_UNCHECKED
    assert report["services"]["s3"]["reasons"] == [
        f"bucket {world.lookalike_bucket}: cannot read its region/tags (access denied)"
    ]
    assert ("bucket", world.weights_bucket) in flagged(report)


def test_access_denied_even_with_nothing_found_is_not_clean(mocked, tmp_path, capsys, monkeypatch):
    tw.write_app_dir(tmp_path)
    deny_service(monkeypatch, "sagemaker")
    code = main(["--app-dir", str(tmp_path)])
    out = capsys.readouterr().out

    assert code == EXIT_UNCHECKED
    assert "sagemaker          UNCHECKED" in out
    assert "not known to be clean" in out


def test_access_denied_during_delete_leaves_it_reported(world, capsys, monkeypatch):
    deny_service(monkeypatch, "sagemaker")
    code, report = run_json(capsys, ["--app-dir", str(world.app_dir), "--delete", "--yes"])

    assert code == EXIT_UNCHECKED
    assert report["services"]["sagemaker"]["status"] == "UNCHECKED"
    # The rest was still cleaned.
    assert flagged(report) == set()
    assert boto3.client("sagemaker", region_name=tw.REGION).list_endpoints()["Endpoints"]


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    return env


def test_missing_credentials_exit_2_as_subprocess(tmp_path):
    tw.write_app_dir(tmp_path / "app")
    proc = subprocess.run(
        [sys.executable, "-m", "teardown", "--app-dir", str(tmp_path / "app")],
        cwd=REPO_ROOT,
        env={**_clean_env(tmp_path), "AWS_REGION": tw.REGION},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == EXIT_USAGE, proc.stderr
    assert "error: no AWS credentials found" in proc.stderr
    assert proc.stdout == ""


def test_help_as_subprocess_documents_exit_codes(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "teardown", "--help"],
        cwd=REPO_ROOT,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "--delete" in proc.stdout and "exit codes" in proc.stdout.lower()


def test_invalid_region_is_a_clear_error(mocked, tmp_path, capsys):
    tw.write_app_dir(tmp_path)
    code = main(["--app-dir", str(tmp_path), "--region", "us-middle-7"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert "invalid AWS region 'us-middle-7'" in err


def test_no_region_anywhere_is_a_clear_error(mocked, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.delenv("AWS_REGION", raising=False)
    (tmp_path / "cdk.json").write_text(json.dumps({"context": {}}))
    assert main(["--app-dir", str(tmp_path)]) == EXIT_USAGE
    assert "no AWS region" in capsys.readouterr().err


def test_unknown_profile_is_a_clear_error(aws_env, tmp_path, capsys):
    assert main(["--app-dir", str(tmp_path), "--profile", "nope"]) == EXIT_USAGE
    assert "profile 'nope' not found" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--app-name", "bad name!"], "invalid app name"),
        (["--image-tag", "no spaces allowed"], "invalid --image-tag"),
    ],
)
def test_bad_input_is_a_clear_error(mocked, tmp_path, capsys, argv, message):
    tw.write_app_dir(tmp_path)
    assert main(["--app-dir", str(tmp_path), *argv]) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_broken_cdk_json_is_a_clear_error(mocked, tmp_path, capsys):
    (tmp_path / "cdk.json").write_text("{not json")
    assert main(["--app-dir", str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error: cannot read" in err and "cdk.json" in err


def test_yes_without_delete_is_rejected(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--yes"])
    assert exc.value.code == EXIT_USAGE
    assert "--yes only applies together with --delete" in capsys.readouterr().err

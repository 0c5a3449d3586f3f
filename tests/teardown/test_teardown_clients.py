"""Every AWS client the cleanup creates, built by its own session and client factory exactly as
a run builds them, observed on the wire: the host each request goes to and the region and
service in its SigV4 signature. The region precedence is checked there, not in a variable."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest

from teardown import aws, cli
from teardown.cli import EXIT_CLEAN
from tests.support.teardown_world import run_json

# Credential=<key id>/<date>/<region>/<service>/aws4_request
_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request")

# Signing names of the services a run reads: identity, stacks, SageMaker, AgentCore, buckets,
# images, log groups, and the tagging API (log-group tags).
SERVICES_READ = {
    "sts",
    "cloudformation",
    "sagemaker",
    "bedrock-agentcore",
    "s3",
    "ecr",
    "logs",
    "tagging",
}


@dataclass(frozen=True)
class Sent:
    host: str
    region: str
    service: str


def record_requests(monkeypatch: pytest.MonkeyPatch) -> list[Sent]:
    """Wraps the CLI's own session factory; every request its clients send is recorded just
    before it leaves (after signing), then goes on to moto unchanged."""
    sent: list[Sent] = []

    def record(request, **_: object) -> None:
        scope = _SCOPE.search(request.headers["Authorization"].decode())
        assert scope is not None, request.headers["Authorization"]
        sent.append(Sent(urlsplit(request.url).hostname or "", scope["region"], scope["service"]))

    def make_session(profile: str | None) -> boto3.Session:
        session = aws.make_session(profile)
        session.events.register_first("before-send", record)
        return session

    monkeypatch.setattr(cli, "make_session", make_session)
    return sent


def _config_file(tmp_path: Path) -> Path:
    path = tmp_path / "aws-config"
    path.write_text(
        "[default]\nregion = eu-central-1\n\n[profile other]\nregion = ap-southeast-2\n"
        "aws_access_key_id = testing\naws_secret_access_key = testing\n"
    )
    return path


@pytest.mark.parametrize(
    ("option", "environment", "expected"),
    [
        (["--region", "eu-west-1"], {"AWS_REGION": "ap-northeast-1"}, "eu-west-1"),
        ([], {"AWS_REGION": "ap-northeast-1", "AWS_DEFAULT_REGION": "us-west-2"}, "ap-northeast-1"),
        ([], {"AWS_REGION": "ap-northeast-1"}, "ap-northeast-1"),
        ([], {"AWS_DEFAULT_REGION": "us-west-2"}, "us-west-2"),
        ([], {}, "eu-central-1"),  # the default profile's region
        (["--profile", "other"], {}, "ap-southeast-2"),
        (["--profile", "other"], {"AWS_REGION": "ca-central-1"}, "ca-central-1"),
    ],
)
def test_region_precedence_on_the_wire(
    mocked, tmp_path, capsys, monkeypatch, option, environment, expected
):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(_config_file(tmp_path)))
    sent = record_requests(monkeypatch)

    code, report = run_json(capsys, ["--app-dir", str(tmp_path), *option])

    assert report["region"] == expected
    assert {s.service for s in sent} == SERVICES_READ
    assert {s.region for s in sent} == {expected}
    # Regional hosts: sts.<region>.amazonaws.com, s3.<region>.amazonaws.com, ...
    assert all(f".{expected}." in s.host for s in sent), sorted({s.host for s in sent})
    assert code == EXIT_CLEAN


def test_delete_run_signs_every_request_for_the_resolved_region(world, capsys, monkeypatch):
    monkeypatch.delenv("AWS_DEFAULT_REGION")  # only AWS_REGION (us-east-1) is set
    sent = record_requests(monkeypatch)

    code, _ = run_json(capsys, ["--app-dir", str(world.app_dir), "--delete", "--yes"])

    assert code == EXIT_CLEAN
    assert {s.service for s in sent} == SERVICES_READ
    assert {s.region for s in sent} == {"us-east-1"}


def test_no_region_error_names_every_source(mocked, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    assert cli.main(["--app-dir", str(tmp_path)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "no AWS region" in err
    for source in ("--region", "AWS_REGION", "AWS_DEFAULT_REGION", "profile"):
        assert source in err

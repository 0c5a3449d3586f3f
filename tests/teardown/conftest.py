"""Fixtures for the cleanup tests: fake credentials, moto's in-process AWS mock, and moto in
server mode on loopback for the CLI run as its own process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import teardown_world
from moto import mock_aws
from moto_server import moto_server

from teardown.cli import main


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials only moto accepts; no real AWS config, no instance metadata lookups."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", teardown_world.REGION)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")  # AWS_REGION must win
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def mocked(aws_env: None) -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def world(mocked: None, tmp_path: Path) -> teardown_world.World:
    return teardown_world.build(tmp_path / "app")


@pytest.fixture
def server_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A moto server on loopback; this process's boto3 clients (the world builder) use it too."""
    with moto_server() as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL", url)
        yield url


@pytest.fixture
def server_world(aws_env: None, server_url: str, tmp_path: Path) -> teardown_world.World:
    """The leftover world, inside the moto server."""
    return teardown_world.build(tmp_path / "app")


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    """main(argv + --json) in-process; returns the exit code and the parsed stdout."""
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def flagged(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["kind"], f["name"]) for f in report["findings"]}

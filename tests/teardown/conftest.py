"""Fixtures for the cleanup tests: fake credentials and moto's in-process AWS mock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from moto import mock_aws

from tests.support import teardown_world


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials only moto accepts; no real AWS config, no instance metadata lookups."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")  # cdk.json's region must win
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

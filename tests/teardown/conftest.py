"""Fixtures for the cleanup tests: fake credentials, moto's in-process AWS mock, and moto in
server mode on loopback for the CLI run as its own process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from moto import mock_aws

from tests.support import teardown_world
from tests.support.moto_server import moto_server


def fake_aws_env(patch: pytest.MonkeyPatch, home: Path) -> None:
    """Credentials only moto accepts; no real AWS config, no instance metadata lookups."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        patch.delenv(name, raising=False)
    patch.setenv("AWS_ACCESS_KEY_ID", "testing")
    patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    patch.setenv("AWS_REGION", teardown_world.REGION)
    patch.setenv("AWS_DEFAULT_REGION", "us-west-2")  # AWS_REGION must win
    patch.setenv("AWS_CONFIG_FILE", str(home / "no-config"))
    patch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "no-credentials"))
    patch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_aws_env(monkeypatch, tmp_path)


@pytest.fixture
def mocked(aws_env: None) -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def world(mocked: None, tmp_path: Path) -> teardown_world.World:
    return teardown_world.build(tmp_path / "app")


@pytest.fixture(scope="module")
def read_only_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[teardown_world.World]:
    """One leftover world for a whole module whose tests only read it (dry-run reports and
    refused deletions): built once instead of once per test (0.6 s each)."""
    with pytest.MonkeyPatch.context() as patch:
        fake_aws_env(patch, tmp_path_factory.mktemp("aws"))
        with mock_aws():
            yield teardown_world.build(tmp_path_factory.mktemp("world") / "app")


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

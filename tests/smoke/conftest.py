"""Fixtures for the smoke-check tests: fake credentials, a moto server standing in for the
CloudFormation/SageMaker control planes, and the AWS front-door stand-in in front of the real
Kokoro server and a real voice agent (all on 127.0.0.1).

Every boto3 client under test is built by the smoke check's own code; these fixtures only
route it with the SDKs' standard per-service endpoint variables (AWS_ENDPOINT_URL_<SERVICE>,
tests/support/smoke_world.py), exactly as a user would point it at a VPC endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.loopback import AppServer
from tests.support.aws_front import AwsFront
from tests.support.moto_server import moto_server, reset_moto
from tests.support.servers import ThreadedServer
from tests.support.smoke_world import ANSWER, AWS_VARS, KEY_ID, REGION, Deployed
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Fake keys in the environment, no config files, no instance metadata lookups."""
    for name in AWS_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-for-loopback-only")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return monkeypatch


@pytest.fixture(scope="session")
def moto_url() -> Iterator[str]:
    """moto in server mode on loopback (CloudFormation outputs, DescribeEndpoint)."""
    with moto_server() as url:
        yield url


@pytest.fixture
def deployed(moto_url: str, aws_env: pytest.MonkeyPatch) -> Deployed:
    """An empty moto account for each test (moto's reset API), to fill as the test needs.
    (Every other moto server starts empty itself: moto_server() resets on entry.)"""
    reset_moto(moto_url)
    return Deployed(moto_url)


@pytest.fixture(scope="module")
def agent_url(server: ThreadedServer) -> Iterator[str]:
    """The real voice agent (replayed answer, named as such) in front of the real Kokoro."""
    app = create_agent_app(
        AgentSettings(), ReplayedAnswerSource(ANSWER, tokens_per_s=80), WebSocketTts(server.ws)
    )
    with AppServer(app) as agent:
        yield agent.http


@pytest.fixture(scope="module")
def front_server(server: ThreadedServer, agent_url: str) -> Iterator[tuple[AwsFront, str]]:
    front = AwsFront(kokoro_url=server.http, agent_url=agent_url, region=REGION)
    with AppServer(front.app) as running:
        yield front, running.http


@pytest.fixture
def front(front_server: tuple[AwsFront, str]) -> Iterator[AwsFront]:
    stand_in, _ = front_server
    stand_in.reset()
    yield stand_in
    stand_in.reset()


@pytest.fixture
def front_url(front_server: tuple[AwsFront, str], front: AwsFront) -> str:
    return front_server[1]

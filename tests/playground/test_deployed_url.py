"""Deployed mode: the page server signs the runtime's WebSocket URL with the user's AWS
credentials through the real bedrock-agentcore SDK client, exactly as it runs in
`make playground ARGS=--runtime-arn ...`, and the browser gets only that URL.

The URL is taken apart and checked against AWS's own conventions, not the SDK's code: the
data-plane host and /runtimes/<arn>/ws path of the AgentCore WebSocket guide, the session id
under the header name botocore's service model gives runtimeSessionId, and a SigV4 query
signature recomputed by an independent implementation (tests/support/sigv4.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import botocore.session
import httpx
import pytest

from devkit.loopback import AppServer
from playground.__main__ import region_of
from playground.server import PageConfig, create_app
from playground.targets import DeployedRuntime
from tests.support.sigv4 import expected_signature

REGION = "us-west-2"
ARN = f"arn:aws:bedrock-agentcore:{REGION}:123456789012:runtime/voice_agent-AbCdEf1234"
ACCESS_KEY = "AKIAPLAYGROUNDTEST01"
SECRET_KEY = "playground/test/secret+key/do-not-use"
TOKEN = "IQoJb3JpZ2luX2VjEPlay//ground+token=="


def session_header_name() -> str:
    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    member = model.operation_model("InvokeAgentRuntime").input_shape.members["runtimeSessionId"]
    return str(member.serialization["name"])


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Credentials from the environment only: no profile files, no instance metadata."""
    for name in (
        "AWS_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return monkeypatch


def page_for(qualifier: str | None = None) -> AppServer:
    target = DeployedRuntime(ARN, region_of(ARN), qualifier)
    return AppServer(create_app(PageConfig(target)))


def connect(page: AppServer, session: str) -> httpx.Response:
    return httpx.post(f"{page.http}/api/connection", json={"session_id": session}, timeout=30)


@pytest.fixture
def signed(aws_env: pytest.MonkeyPatch) -> Iterator[tuple[str, str, httpx.Response]]:
    aws_env.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    aws_env.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    session = str(uuid.uuid4())
    with page_for("DEFAULT") as page:
        yield page.http, session, connect(page, session)


def test_url_goes_to_the_runtimes_websocket_with_the_session(signed) -> None:
    _page, session, answer = signed
    assert answer.status_code == 200, answer.text
    url = urlsplit(answer.json()["url"])
    assert url.scheme == "wss"
    assert url.netloc == f"bedrock-agentcore.{REGION}.amazonaws.com"
    assert url.path == f"/runtimes/{quote(ARN, safe='')}/ws"
    query = parse_qs(url.query)
    assert query[session_header_name()] == [session]
    assert query["qualifier"] == ["DEFAULT"]


def test_url_carries_a_valid_sigv4_query_signature(signed) -> None:
    _page, _session, answer = signed
    url = answer.json()["url"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    date = query["X-Amz-Date"][:8]
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert (
        query["X-Amz-Credential"] == f"{ACCESS_KEY}/{date}/{REGION}/bedrock-agentcore/aws4_request"
    )
    assert query["X-Amz-SignedHeaders"] == "host"
    assert query["X-Amz-Expires"] == "60"
    assert query["X-Amz-Signature"] == expected_signature(
        url, SECRET_KEY, REGION, "bedrock-agentcore"
    )
    # The check can fail: the same URL does not verify under another key.
    assert query["X-Amz-Signature"] != expected_signature(url, "other", REGION, "bedrock-agentcore")
    assert SECRET_KEY not in answer.text and quote(SECRET_KEY, safe="") not in answer.text


def test_temporary_credentials_send_their_token_not_their_secret(aws_env) -> None:
    aws_env.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    aws_env.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    aws_env.setenv("AWS_SESSION_TOKEN", TOKEN)
    with page_for() as page:
        answer = connect(page, str(uuid.uuid4()))
    url = answer.json()["url"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query["X-Amz-Security-Token"] == TOKEN
    assert "qualifier" not in query
    assert query["X-Amz-Signature"] == expected_signature(
        url, SECRET_KEY, REGION, "bedrock-agentcore"
    )
    assert SECRET_KEY not in answer.text


def test_every_connection_gets_a_fresh_url_for_its_session(signed) -> None:
    page, _session, first = signed
    other = str(uuid.uuid4())
    second = httpx.post(f"{page}/api/connection", json={"session_id": other}, timeout=30)
    assert parse_qs(urlsplit(second.json()["url"]).query)[session_header_name()] == [other]
    assert second.json()["url"] != first.json()["url"]


def test_without_credentials_the_page_is_told_why(aws_env) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        aws_env.delenv(name, raising=False)
    with page_for() as page:
        answer = connect(page, str(uuid.uuid4()))
    assert answer.status_code == 502
    assert "No AWS credentials" in answer.json()["error"]


def test_the_page_may_connect_only_to_the_runtimes_host(signed) -> None:
    page, _session, _answer = signed
    csp = httpx.get(f"{page}/").headers["content-security-policy"]
    assert f"connect-src 'self' wss://bedrock-agentcore.{REGION}.amazonaws.com;" in csp


def test_region_comes_from_the_arn_and_a_bad_arn_is_refused() -> None:
    assert region_of(ARN) == REGION
    with pytest.raises(SystemExit, match="not an AgentCore runtime ARN"):
        region_of("arn:aws:lambda:us-east-1:123456789012:function:x")

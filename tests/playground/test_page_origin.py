"""The page server over real HTTP on loopback refuses what another page's browser sends:
a request whose Origin is not the server's own gets 403 (the Host check alone lets a simple
cross-origin POST to http://127.0.0.1:<port>/api/connection through)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import httpx
import pytest

from devkit.loopback import AppServer
from playground.server import PageConfig, create_app
from playground.targets import LocalAgent

AGENT_WS = "ws://127.0.0.1:40123/ws"


@pytest.fixture(scope="module")
def page() -> Iterator[AppServer]:
    with AppServer(create_app(PageConfig(LocalAgent(AGENT_WS)))) as server:
        yield server


def connection(base: str, headers: dict[str, str]) -> httpx.Response:
    body = json.dumps({"session_id": str(uuid.uuid4())})
    # text/plain: what a page elsewhere can send without a preflight
    headers = {"Content-Type": "text/plain", **headers}
    return httpx.post(f"{base}/api/connection", content=body, headers=headers)


@pytest.mark.parametrize(
    "origin", ["https://attacker.example", "http://localhost:1", "null", "http://127.0.0.1"]
)
def test_a_request_from_another_page_is_refused(page: AppServer, origin: str) -> None:
    response = connection(page.http, {"Origin": origin})
    assert response.status_code == 403
    assert "url" not in response.json()
    assert httpx.get(f"{page.http}/api/config", headers={"Origin": origin}).status_code == 403


def test_the_pages_own_requests_and_clients_without_an_origin_are_answered(
    page: AppServer,
) -> None:
    for headers in ({"Origin": page.http}, {}):
        response = connection(page.http, headers)
        assert response.status_code == 200, response.text
        assert response.json()["url"] == AGENT_WS
    localhost = page.http.replace("127.0.0.1", "localhost")
    own = {"Origin": localhost, "Host": localhost.removeprefix("http://")}
    assert connection(page.http, own).status_code == 200

"""The page server over real HTTP on loopback: the page and everything it loads come from it,
its security headers, the connection endpoint for a local agent, and the Host check that keeps
other sites (and DNS rebinding) from using it."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from devkit.loopback import AppServer
from playground.server import STATIC_DIR, PageConfig, create_app
from playground.targets import LocalAgent

AGENT_WS = "ws://127.0.0.1:40123/ws"


@pytest.fixture(scope="module")
def page() -> Iterator[str]:
    config = PageConfig(LocalAgent(AGENT_WS), text_source="a scripted conversation")
    with AppServer(create_app(config)) as server:
        yield server.value


def test_page_and_its_scripts_are_served_with_a_strict_policy(page: str) -> None:
    index = httpx.get(f"{page}/")
    assert index.status_code == 200
    assert index.headers["content-type"].startswith("text/html")
    csp = index.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "connect-src 'self' ws://127.0.0.1:40123" in csp  # the agent, nothing else
    assert index.headers["x-content-type-options"] == "nosniff"
    for src in re.findall(r'(?:src|href)="([^"]+)"', index.text):
        assert src.startswith("/static/"), src
        assert httpx.get(f"{page}{src}").status_code == 200


def test_no_file_of_the_page_loads_anything_from_elsewhere() -> None:
    """No CDN: every import, worklet and stylesheet is a path on this server."""
    files = sorted(STATIC_DIR.iterdir())
    assert {f.suffix for f in files} == {".html", ".js", ".css"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://|//cdn|@import", text), path.name
        for target in re.findall(r'from "([^"]+)"|addModule\("([^"]+)"\)', text):
            name = "".join(target)
            assert name.startswith(("./", "/static/")), (path.name, name)


def test_config_says_what_the_page_offers(page: str) -> None:
    config = httpx.get(f"{page}/api/config").json()
    assert config["target"] == "local"
    assert config["text_source"] == "a scripted conversation"
    assert config["sample_rate"] == 24000
    assert "voices" not in config  # the page asks the agent for them over its /ws


def test_local_connection_is_the_agents_ws(page: str) -> None:
    session = str(uuid.uuid4())
    answer = httpx.post(f"{page}/api/connection", json={"session_id": session})
    assert answer.status_code == 200
    assert answer.json() == {"url": AGENT_WS, "session_id": session}
    assert answer.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"not json", 400, "JSON object"),
        (b"[1]", 400, "JSON object"),
        (json.dumps({"session_id": "short"}).encode(), 400, "33-256"),
        (json.dumps({"session_id": "x" * 40 + "/../"}).encode(), 400, "33-256"),
        (json.dumps({"session_id": "a" * 5000}).encode(), 413, "too large"),
    ],
)
def test_bad_connection_requests_get_a_clear_error(
    page: str, body: bytes, status: int, message: str
) -> None:
    answer = httpx.post(f"{page}/api/connection", content=body)
    assert answer.status_code == status
    assert message in answer.json()["error"]


def test_requests_for_another_host_name_are_refused(page: str) -> None:
    """A rebinding attack reaches 127.0.0.1 under the attacker's host name."""
    session = str(uuid.uuid4())
    answer = httpx.post(
        f"{page}/api/connection",
        json={"session_id": session},
        headers={"Host": "attacker.example"},
    )
    assert answer.status_code == 400
    assert AGENT_WS not in answer.text
    assert httpx.get(f"{page}/", headers={"Host": "localhost"}).status_code == 200

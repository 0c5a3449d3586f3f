"""The agent's Origin allowlist on loopback: the real agent app (replayed answer, not an LLM)
in front of the REAL Kokoro-82M server (tests/conftest.py's `server`).

A browser sends `Origin` on every WebSocket handshake and on a cross-origin POST; the agent
must refuse a page elsewhere (HTTP 403, before any turn starts) and still answer loopback
pages, clients without an Origin, and requests AgentCore forwards (its session header)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from devkit.agent_client import InvocationResult, read_answer
from devkit.agent_events import sse_event, ws_events
from devkit.loopback import AppServer
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.origins import ALLOWED_ORIGINS_ENV, REFUSED, OriginPolicy
from voice_agent.settings import AgentSettings

pytestmark = [pytest.mark.model, pytest.mark.replayable]

ANSWER = "Your order shipped. It arrives Thursday."
FOREIGN = "https://attacker.example"
SESSION_HEADER = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
# What a page elsewhere can send without a preflight: text/plain, which the SDK decodes anyway.
SIMPLE = {"Content-Type": "text/plain"}
PROMPT = json.dumps({"prompt": "where is my order?"})


def agent(server: ThreadedServer, settings: AgentSettings) -> AppServer:
    source = ReplayedAnswerSource(ANSWER, tokens_per_s=80)
    return AppServer(create_app(settings, source, WebSocketTts(server.ws)))


@pytest.fixture(scope="module")
def agent_url(server: ThreadedServer) -> Iterator[str]:
    """The agent with the default policy (no VOICE_AGENT_ALLOWED_ORIGINS)."""
    with agent(server, AgentSettings.from_env({"AGENT_TEXT_SOURCE": "replay"})) as app:
        yield app.http


async def ws_turn(base: str, origin: str | None) -> InvocationResult:
    ws_url = base.replace("http://", "ws://") + "/ws"
    async with asyncio.timeout(60), connect(ws_url, origin=origin, max_size=None) as ws:  # type: ignore[arg-type]
        await ws.send(PROMPT)
        return await read_answer(ws_events(ws), InvocationResult(mode="stream"))


async def ws_refusal(base: str, origin: str) -> int:
    """The handshake's HTTP status when the agent refuses it."""
    with pytest.raises(InvalidStatus) as refused:
        await ws_turn(base, origin)
    return refused.value.response.status_code


async def post(base: str, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=60) as client:
        return await client.post(
            base + "/invocations", content=PROMPT, headers={**SIMPLE, **headers}
        )


def answered(result: InvocationResult) -> None:
    assert result.ok, result.errors
    assert result.text == ANSWER and result.audio_bytes > 0


def sse_answered(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text
    result = InvocationResult(mode="stream")
    for block in response.text.split("\n\n"):
        if block.startswith("data: "):
            result.add(*sse_event(block.removeprefix("data: ")))
    answered(result)


@pytest.mark.parametrize(
    "origin",
    [
        FOREIGN,
        "http://127.0.0.1.attacker.example:8080",  # DNS names that merely start like loopback
        "http://localhost.attacker.example",
        "null",  # sandboxed frames and file:// pages
        "http://127.0.0.1:8080/path",  # not an origin
    ],
)
async def test_a_page_elsewhere_gets_403_on_ws_and_on_a_simple_post(
    agent_url: str, origin: str
) -> None:
    assert await ws_refusal(agent_url, origin) == 403
    response = await post(agent_url, {"Origin": origin})
    assert response.status_code == 403 and response.text == REFUSED


@pytest.mark.parametrize(
    "origin", [None, "http://127.0.0.1:8765", "http://localhost:5173", "http://[::1]:9000"]
)
async def test_loopback_pages_and_clients_without_an_origin_get_an_answer(
    agent_url: str, origin: str | None
) -> None:
    answered(await ws_turn(agent_url, origin))
    sse_answered(await post(agent_url, {"Origin": origin} if origin else {}))


async def test_the_environment_variable_widens_the_list(server: ThreadedServer) -> None:
    env = {"AGENT_TEXT_SOURCE": "replay", ALLOWED_ORIGINS_ENV: "https://app.example.com, "}
    with agent(server, AgentSettings.from_env(env)) as app:
        answered(await ws_turn(app.http, "https://app.example.com"))
        sse_answered(await post(app.http, {"Origin": "https://APP.example.com"}))
        answered(await ws_turn(app.http, "http://127.0.0.1:8765"))  # loopback stays allowed
        assert await ws_refusal(app.http, FOREIGN) == 403
        assert (await post(app.http, {"Origin": "http://app.example.com"})).status_code == 403
    env[ALLOWED_ORIGINS_ENV] = "*"
    with agent(server, AgentSettings.from_env(env)) as app:
        answered(await ws_turn(app.http, FOREIGN))
        sse_answered(await post(app.http, {"Origin": "null"}))


async def test_requests_agentcore_forwards_are_not_checked_but_a_preflight_is(
    agent_url: str,
) -> None:
    """AgentCore puts its session header on what it forwards; a page elsewhere could only add
    it to a preflighted request, and that preflight (no such header) is refused."""
    sse_answered(await post(agent_url, {"Origin": FOREIGN, SESSION_HEADER: "s" * 40}))
    async with httpx.AsyncClient(timeout=10) as client:
        preflight = await client.options(
            agent_url + "/invocations",
            headers={
                "Origin": FOREIGN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": SESSION_HEADER.lower(),
            },
        )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers


@pytest.mark.parametrize("raw", ["app.example.com", "https://app.example.com/page", "ftp://x"])
def test_an_entry_that_is_no_origin_stops_the_agent_from_starting(raw: str) -> None:
    with pytest.raises(ValueError, match=ALLOWED_ORIGINS_ENV):
        AgentSettings.from_env({"AGENT_TEXT_SOURCE": "replay", ALLOWED_ORIGINS_ENV: raw})
    with pytest.raises(ValueError, match=ALLOWED_ORIGINS_ENV):
        OriginPolicy.parse(f"http://127.0.0.1:8765,{raw}")

"""What the page does when things go wrong, in a real Chromium: a request the agent refuses,
a connection that drops mid-answer (the agent's server restarts), and frames that break the
/ws protocol. Each time the page says clearly what happened, and the next message works."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from devkit.loopback import AppServer
from playground.server import PageConfig
from playground.server import create_app as create_page_app
from playground.targets import LocalAgent
from tests.support.playground import Playground, serve_playground
from tests.support.playground_page import PlaygroundPage
from tests.support.servers import ThreadedServer

pytestmark = pytest.mark.browser
ANSWER = "Your order shipped this morning. It should arrive on Thursday."


@pytest.fixture
def stack(server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Playground]:
    yield from serve_playground(server.ws, [ANSWER], tmp_path_factory)


@pytest.mark.replayable
def test_a_refused_request_is_shown_and_the_next_one_plays(
    stack: Playground, page: PlaygroundPage
) -> None:
    page.open(stack.url)
    page.page.fill("#voice", "xx_nobody")
    page.send("Where is my order?")
    first = page.wait_turn(1, ("failed",), timeout_s=60)
    assert [e["code"] for e in first["errors"]] == ["tts_unknown_voice"]
    error = page.error_text()
    assert error is not None and "tts_unknown_voice" in error and "xx_nobody" in error

    page.page.fill("#voice", "")
    page.send("Where is my order?")
    second = page.wait_turn(2, ("done",), timeout_s=120)
    assert second["errors"] == [] and second["receivedFrames"] > 0
    assert page.error_text() is None  # a new message clears the old error
    assert page.page.locator('[data-turn="1"]').get_attribute("data-state") == "failed"


def test_a_dropped_connection_is_shown_and_the_page_reconnects(
    stack: Playground, page: PlaygroundPage
) -> None:
    page.open(stack.url)
    page.send("Where is my order?")
    page.wait_heard(200, timeout_s=60)  # mid-answer
    stack.restart_agent()
    error = page.wait_error(timeout_s=20)
    assert "connection to the agent lost" in error and "reconnects by itself" in error
    first = page.turn(1)
    assert first["state"] == "failed"
    assert "connection lost" in [e["message"] for e in first["errors"]]

    page.wait("() => window.playground.connection.open", 30)
    assert page.page.locator("#status").get_attribute("data-state") == "open"
    page.send("Where is my order?")
    second = page.wait_turn(2, ("done",), timeout_s=120)
    assert second["errors"] == [] and second["text"].strip() == ANSWER


class MisbehavingAgent:
    """A test double of the agent's /ws (the real agent cannot be made to break its protocol):
    the voice list is answered, empty; the first answer carries a frame that is not JSON, a
    binary frame without its header and a header whose frame has the wrong size, between
    valid events; later answers are valid."""

    def __init__(self) -> None:
        self.answers = 0
        self.server = AppServer(Starlette(routes=[WebSocketRoute("/ws", self.serve)]))

    async def serve(self, websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            message = json.loads(await websocket.receive_text())
            if message.get("list") == "voices":  # what the page asks first: a valid answer
                await websocket.send_text(json.dumps({"type": "voices", "voices": []}))
                continue
            if message.get("type") == "interrupt":
                continue
            self.answers += 1
            await websocket.send_text(json.dumps({"type": "text", "delta": "Hello there."}))
            if self.answers == 1:
                await websocket.send_text("this is not JSON")
                await websocket.send_bytes(b"\x01\x02\x03")
                await websocket.send_text(json.dumps(audio_header(100)))
                await websocket.send_bytes(bytes(60))
            await websocket.send_text(
                json.dumps({"type": "sentence", "index": 0, "text": "Hello there."})
            )
            pcm = tone(0.5)
            await websocket.send_text(json.dumps(audio_header(len(pcm))))
            await websocket.send_bytes(pcm)
            await websocket.send_text(json.dumps({"type": "done", "metrics": {}}))


def audio_header(size: int) -> dict[str, object]:
    return {"type": "audio", "index": 0, "format": "pcm", "sample_rate": 24000, "bytes": size}


def tone(seconds: float) -> bytes:
    frames = int(24000 * seconds)
    return struct.pack(
        f"<{frames}h", *(int(8000 * math.sin(2 * math.pi * 220 * i / 24000)) for i in range(frames))
    )


def test_frames_that_break_the_protocol_are_reported_and_skipped(page: PlaygroundPage) -> None:
    agent = MisbehavingAgent()
    with agent.server:
        config = PageConfig(LocalAgent(agent.server.http.replace("http", "ws") + "/ws"))
        with AppServer(create_page_app(config)) as page_server:
            page.open(f"{page_server.http}/")
            page.send("Hello?")
            first = page.wait_turn(1, ("done",), timeout_s=30)
            errors = [e["message"] for e in page.evaluate("() => window.playground.errors")]
            assert errors == [
                'The agent sent a message that is not JSON: "this is not JSON".',
                "The agent sent a binary frame of 3 bytes without an audio header.",
                "The agent sent an audio frame of 60 bytes after a header announcing 100.",
            ]
            assert page.error_text() is not None
            assert first["receivedFrames"] == 12000  # the valid audio still played
            page.send("Hello again?")
            second = page.wait_turn(2, ("done",), timeout_s=30)
            assert second["receivedFrames"] == 12000
            assert page.error_text() is None

"""The voice picker in a real Chromium: filled from the agent's voice list (asked over its
/ws), each voice with its language and the deployment's own files marked; the field still
takes a blend, which the real model speaks, and a malformed blend is refused with the
server's own reason on the page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from devkit.loopback import AppServer
from kokoro_server.engine.voices import parse_voice
from kokoro_server.model_facts import VoiceSpecError
from playground.server import PageConfig
from playground.server import create_app as create_page_app
from playground.targets import LocalAgent
from tests.support.playground import Playground, serve_playground
from tests.support.playground_page import PlaygroundPage
from tests.support.servers import ThreadedServer
from tests.support.user_voice import SAVED_BLEND, USER_VOICE

pytestmark = pytest.mark.browser
ANSWER = "Your order shipped this morning."
BLEND = "jf_alpha:2+jf_nezumi:1"
MALFORMED = "jf_alpha:2+"


@pytest.fixture(scope="module")
def stack(server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Playground]:
    yield from serve_playground(server.ws, [ANSWER], tmp_path_factory)


def test_the_picker_lists_the_voices_of_the_agents_tts(
    server: ThreadedServer, stack: Playground, page: PlaygroundPage
) -> None:
    page.open(stack.url)
    picker = page.voice_picker(timeout_s=30)
    served = httpx.get(f"http://127.0.0.1:{server.port}/voices", timeout=10).json()
    assert picker["state"] == "listed", picker["hint"]
    assert [(o["name"], o["language"]) for o in picker["options"]] == [
        (v["name"], v["language"]) for v in served["voices"]
    ]
    assert all(o["language"] in o["label"] for o in picker["options"])
    assert served["default"] in picker["placeholder"]
    assert served["blend_syntax"] in picker["hint"]


def test_a_blend_typed_in_the_field_is_heard(stack: Playground, page: PlaygroundPage) -> None:
    page.open(stack.url)
    page.voice_picker(timeout_s=30)
    page.evaluate("() => { window.playground.audio.keepReceived = true; }")
    for turn, voice in enumerate((BLEND, "jf_alpha"), start=1):
        page.page.fill("#voice", voice)
        page.send("Where is my order?")
        assert page.wait_turn(turn, ("done",), timeout_s=120)["errors"] == []
    blended, plain = page.received(1), page.received(2)
    assert blended["frames"] > 0 and plain["frames"] > 0
    assert blended["hash"] != plain["hash"]
    sent = page.evaluate("() => window.playground.connection.sent")
    assert [m.get("voice") for m in sent if "prompt" in m] == [BLEND, "jf_alpha"]


def test_a_malformed_blend_shows_the_servers_reason(
    stack: Playground, page: PlaygroundPage
) -> None:
    with pytest.raises(VoiceSpecError) as refused:
        parse_voice(MALFORMED)
    page.open(stack.url)
    page.voice_picker(timeout_s=30)
    page.page.fill("#voice", MALFORMED)
    page.send("Where is my order?")
    turn = page.wait_turn(1, ("failed",), timeout_s=60)
    assert [e["code"] for e in turn["errors"]] == ["tts_bad_parameter"]
    shown = page.error_text()
    assert shown is not None and str(refused.value) in shown


@pytest.fixture(scope="module")
def user_voice_stack(
    user_voice_server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Playground]:
    yield from serve_playground(user_voice_server.ws, [ANSWER], tmp_path_factory)


def test_a_user_voice_file_is_listed_marked_and_heard(
    user_voice_stack: Playground, page: PlaygroundPage
) -> None:
    page.open(user_voice_stack.url)
    picker = page.voice_picker(timeout_s=30)
    [mine] = [o for o in picker["options"] if o["name"] == USER_VOICE]
    assert mine["userFile"] and not any(
        o["userFile"] for o in picker["options"] if o["name"] != USER_VOICE
    )
    page.evaluate("() => { window.playground.audio.keepReceived = true; }")
    for turn, voice in enumerate((USER_VOICE, SAVED_BLEND, "jf_alpha"), start=1):
        page.page.fill("#voice", voice)
        page.send("Where is my order?")
        assert page.wait_turn(turn, ("done",), timeout_s=120)["errors"] == []
    saved, spelled, plain = (page.received(turn) for turn in (1, 2, 3))
    # The file holds that mix: the page plays the blend's audio, not the first voice's.
    assert saved["frames"] > 0 and saved["hash"] == spelled["hash"] != plain["hash"]


class ListingAgent:
    """A test double of the agent's /ws answering the voice list with `answer` (a `voices`
    event or an error) and every prompt with a short valid answer, so the page's side of the
    contract is seen with voices the test weights do not have (a user file)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.received: list[dict[str, Any]] = []
        self.server = AppServer(Starlette(routes=[WebSocketRoute("/ws", self.serve)]))

    async def serve(self, websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            message = json.loads(await websocket.receive_text())
            self.received.append(message)
            if message.get("list") == "voices":
                await websocket.send_text(json.dumps(self.answer))
            elif "prompt" in message:
                await websocket.send_text(json.dumps({"type": "text", "delta": "Hello."}))
                await websocket.send_text(json.dumps({"type": "done", "metrics": {}}))


def listing_page(agent: ListingAgent) -> AppServer:
    ws = agent.server.http.replace("http", "ws") + "/ws"
    return AppServer(create_page_app(PageConfig(LocalAgent(ws))))


USER_VOICES = {
    "type": "voices",
    "voices": [
        {"name": "af_heart", "language": "en-us", "gender": "female", "user_file": False},
        {"name": "af_mine", "language": "en-us", "gender": "female", "user_file": True},
        {"name": "jm_kumo", "language": "ja", "gender": "male", "user_file": False},
    ],
    "default": "af_mine",
    "max_blend": 4,
    "blend_syntax": "name:weight+name:weight",
}


def test_each_voice_shows_its_language_and_user_files_are_marked(page: PlaygroundPage) -> None:
    agent = ListingAgent(USER_VOICES)
    with agent.server, listing_page(agent) as page_server:
        page.open(f"{page_server.http}/")
        picker = page.voice_picker(timeout_s=10)
        marked = {o["name"]: (o["userFile"], o["label"]) for o in picker["options"]}
        assert marked == {
            "af_heart": (False, "en-us · female"),
            "af_mine": (True, "en-us · female · your file"),
            "jm_kumo": (False, "ja · male"),
        }
        assert "(1 yours)" in picker["hint"] and "af_mine" in picker["placeholder"]
        page.send("Hello?")
        assert page.wait_turn(1, ("done", "playing"), timeout_s=10)["errors"] == []
        assert agent.received[0] == {"list": "voices"}


def test_a_voice_list_the_agent_cannot_give_is_said_and_the_field_still_works(
    page: PlaygroundPage,
) -> None:
    refusal = {
        "type": "error",
        "code": "tts_unavailable",
        "message": "the TTS server is not reachable",
        "fatal": True,
    }
    agent = ListingAgent(refusal)
    with agent.server, listing_page(agent) as page_server:
        page.open(f"{page_server.http}/")
        picker = page.voice_picker(timeout_s=10)
        assert picker["state"] == "failed" and picker["options"] == []
        assert "tts_unavailable: the TTS server is not reachable" in picker["hint"]
        page.page.fill("#voice", BLEND)
        page.send("Hello?")
        assert page.wait_turn(1, ("done", "playing"), timeout_s=10)["errors"] == []
        assert agent.received[-1]["voice"] == BLEND

"""Conversations and barge-in end to end with the REAL Kokoro-82M model: the container's server
(word timestamps from the model's own durations) + the agent app + a caller over SSE and /ws,
all on 127.0.0.1. The LLM is the agent's real StrandsBedrockSource (Strands BedrockModel and
its boto3 client, built from the environment as in production) talking to BedrockDouble, a
test double of Bedrock's ConverseStream on loopback; what it was sent is the LLM's prompt.

The played_ms values are taken from the model's own word timings of the same answer, read
once from a reference run (synthesis is deterministic).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.agent_client import InvocationResult, invoke_http
from devkit.loopback import AppServer
from tests.support.bedrock_double import BedrockDouble, last_user_text
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app
from voice_agent.conversation import Turn
from voice_agent.llm import INTERRUPTED_NOTE, NOTHING_HEARD_NOTE
from voice_agent.settings import AgentSettings

pytestmark = pytest.mark.model

ORDER = "Where is my order?"
ORDER_ANSWER = "Your order shipped this morning. It arrives on Thursday."
SOONER = "Can it come sooner?"
SOONER_ANSWER = "I will ask the driver."
STORY = "Tell me everything."
STORY_ANSWER = "Your parcel left Denver today. The driver calls ahead. Then you sign for it."
WEATHER = "What is the weather?"
WEATHER_ANSWER = "It is sunny today. Bring a hat."
ANSWERS = {
    ORDER: ORDER_ANSWER,
    SOONER: SOONER_ANSWER,
    STORY: STORY_ANSWER,
    WEATHER: WEATHER_ANSWER,
}
MODEL_ID = "anthropic.claude-test-v1:0"


@dataclass(frozen=True)
class Stack:
    agent: AppServer
    bedrock: BedrockDouble

    @property
    def url(self) -> str:
        return self.agent.http

    @property
    def ws(self) -> str:
        return self.agent.http.replace("http://", "ws://") + "/ws"

    def stored(self, session_id: str) -> list[Turn]:
        """The conversation's turns once no answer of it is running (the caller may read
        `done` a moment before the agent has filed the turn)."""
        conversations = self.agent.app.state.conversations

        def idle_turns() -> list[Turn] | None:
            conversation = conversations.peek((None, session_id))
            return None if conversation.users else list(conversation.turns)

        for _ in range(500):
            if (turns := self.agent.call(idle_turns)) is not None:
                return turns
            time.sleep(0.01)
        raise AssertionError(f"conversation {session_id} stayed busy")

    def prompted_with(self, prompt: str) -> list[list[dict[str, Any]]]:
        """The messages of every Bedrock request whose last user message was `prompt`."""
        return [
            r.body["messages"] for r in self.bedrock.requests if last_user_text(r.body) == prompt
        ]


@pytest.fixture(scope="module")
def stack(server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    none = str(tmp_path_factory.mktemp("aws") / "none")
    with pytest.MonkeyPatch.context() as env, BedrockDouble(ANSWERS, tokens_per_s=60) as bedrock:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"):
            env.delenv(name, raising=False)
        env.setenv("AWS_CONFIG_FILE", none)
        env.setenv("AWS_SHARED_CREDENTIALS_FILE", none)
        env.setenv("AWS_ACCESS_KEY_ID", "AKIDVOICEAGENTTEST")
        env.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
        env.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", bedrock.url)
        # Two answers at once exceed what a 2-core CPU speaks in real time: the second caller
        # waits out the server's `busy` (admission control) instead of being refused.
        settings = AgentSettings.from_env(
            {"BEDROCK_MODEL_ID": MODEL_ID, "AWS_REGION": "us-east-1", "AGENT_TTS_BUSY_WAIT_S": "60"}
        )
        app = create_app(settings, settings.text_source(), WebSocketTts(server.ws))
        with AppServer(app) as agent:
            yield Stack(agent, bedrock)


def word_ends(result: InvocationResult) -> list[list[tuple[str, float]]]:
    """Per sentence, (word, end on the answer's clock) as the agent sent them."""
    return [
        [(w["text"], event["offset_ms"] + w["end_ms"]) for w in event["words"]]
        for event in sorted(result.words, key=lambda e: e["index"])
    ]


def session() -> str:
    return f"e2e-{uuid.uuid4().hex[:8]}"


def checked_timings(r: InvocationResult) -> list[list[tuple[str, float]]]:
    """The model's word timings of ORDER_ANSWER as the caller got them."""
    assert r.ok, r.errors
    assert [r.sentences[i] for i in sorted(r.sentences)] == [
        "Your order shipped this morning.",
        "It arrives on Thursday.",
    ]
    ends = word_ends(r)
    assert [[w for w, _ in s] for s in ends] == [
        ["Your", "order", "shipped", "this", "morning."],
        ["It", "arrives", "on", "Thursday."],
    ]
    starts = {e["index"]: e["offset_ms"] for e in r.words}
    assert starts[0] == 0 and ends[0][-1][1] <= starts[1]  # sentence 1 starts after the last word
    return ends


# played_ms from the answer's word timings -> what the conversation keeps of ORDER_ANSWER.
CASES = {
    "before any audio": (lambda t: 0.0, Turn(ORDER, "", True)),
    "inside a word": (
        lambda t: (t[0][1][1] + t[0][2][1]) / 2,  # between the ends of "order" and "shipped"
        Turn(ORDER, "Your order", True),
    ),
    "at a word's end exactly": (lambda t: t[0][2][1], Turn(ORDER, "Your order shipped", True)),
    "between sentences": (
        lambda t: t[0][-1][1] + 1,  # after "morning." ended, before "It" ends
        Turn(ORDER, "Your order shipped this morning.", True),
    ),
    "inside the second sentence": (
        lambda t: t[1][1][1],
        Turn(ORDER, "Your order shipped this morning. It arrives", True),
    ),
    "after the end": (lambda t: 600_000.0, Turn(ORDER, ORDER_ANSWER, False)),
}


def prompt_with(turn: Turn, prompt: str) -> list[dict[str, Any]]:
    """The Bedrock messages for `prompt` after `turn`, an interrupted answer marked."""
    said = turn.answer
    if turn.interrupted:
        said = f"{said} {INTERRUPTED_NOTE}" if said else NOTHING_HEARD_NOTE
    return [
        {"role": "user", "content": [{"text": turn.prompt}]},
        {"role": "assistant", "content": [{"text": said}]},
        {"role": "user", "content": [{"text": prompt}]},
    ]


async def test_interrupts_at_several_points_keep_exactly_the_words_heard(stack: Stack) -> None:
    """One answer, cut again and again, each time further (/ws: an interrupt after the answer
    ended cuts that answer; a later cut only cuts further, it never brings words back), then
    the next turn's prompt."""
    sid = session()
    async with connect(stack.ws, max_size=None) as ws:
        await ws.send(json.dumps({"prompt": ORDER, "session_id": sid}))
        first = InvocationResult(mode="stream")
        while first.total_ms is None:
            first.add(*await read_event(ws))
        timings = checked_timings(first)
        for case, (played, expected) in reversed(CASES.items()):  # latest point first
            ms = played(timings)
            await ws.send(json.dumps({"type": "interrupt", "played_ms": ms}))
            reply, _ = await read_event(ws)
            assert reply == {"type": "interrupted", "played_ms": ms, "heard": expected.answer}, case
            assert stack.stored(sid) == [expected], case
        # The last cut ("before any audio") kept nothing: a later, larger played_ms keeps it so.
        ms = CASES["inside a word"][0](timings)
        await ws.send(json.dumps({"type": "interrupt", "played_ms": ms}))
        reply, _ = await read_event(ws)
        assert reply["heard"] == ""
        await ws.send(json.dumps({"prompt": SOONER, "session_id": sid}))
        second = InvocationResult(mode="stream")
        while second.total_ms is None:
            second.add(*await read_event(ws))
    assert second.ok and second.metrics["history_turns"] == 1
    cut = Turn(ORDER, "", True)
    assert stack.stored(sid) == [cut, Turn(SOONER, SOONER_ANSWER, False)]
    assert stack.prompted_with(SOONER)[-1] == prompt_with(cut, SOONER)


@pytest.mark.replayable
async def test_sse_interrupted_cuts_the_previous_answer_before_the_next_turn(
    stack: Stack,
) -> None:
    sid = session()
    timings = checked_timings(await invoke_http(stack.url, {"prompt": ORDER, "session_id": sid}))
    played, expected = CASES["inside the second sentence"]
    payload = {"prompt": SOONER, "session_id": sid, "interrupted": {"played_ms": played(timings)}}
    second = await invoke_http(stack.url, payload)
    assert second.ok, second.errors
    assert stack.stored(sid) == [expected, Turn(SOONER, SOONER_ANSWER, False)]
    assert stack.prompted_with(SOONER)[-1] == prompt_with(expected, SOONER)


async def read_event(ws: Any) -> tuple[dict[str, Any], bytes | None]:
    event = json.loads(await asyncio.wait_for(ws.recv(), 60))
    audio = await asyncio.wait_for(ws.recv(), 60) if event["type"] == "audio" else None
    return event, audio


def delivered_ms(events: list[dict[str, Any]]) -> float:
    """Milliseconds of 16-bit PCM audio the events announced."""
    audio = [e for e in events if e["type"] == "audio"]
    assert all(e["format"] == "pcm" for e in audio)
    return sum(e["bytes"] / (2 * e["sample_rate"]) * 1000 for e in audio)


async def test_ws_interrupt_mid_answer_stops_it_and_keeps_what_was_heard(stack: Stack) -> None:
    async with connect(stack.ws, max_size=None) as ws:
        await ws.send(json.dumps({"prompt": STORY}))
        before: list[dict[str, Any]] = []
        while not any(e["type"] == "words" and e["index"] == 1 for e in before):
            event, _ = await read_event(ws)
            before.append(event)
        words = {e["index"]: e for e in before if e["type"] == "words"}
        second = words[1]
        # The caller heard the first sentence and the second's first two words; "calls" had
        # begun, not ended.
        played = (
            second["offset_ms"] + (second["words"][1]["end_ms"] + second["words"][2]["end_ms"]) / 2
        )
        # Words come ahead of their audio; a caller plays only audio it received, and the
        # agent cuts at what it delivered: interrupt once that much audio has arrived.
        while delivered_ms(before) < played:
            event, _ = await read_event(ws)
            before.append(event)
        await ws.send(json.dumps({"type": "interrupt", "played_ms": played}))
        after: list[dict[str, Any]] = []
        while not after or after[-1]["type"] != "interrupted":
            event, _ = await read_event(ws)
            after.append(event)
        with pytest.raises(TimeoutError):  # nothing follows the `interrupted` event
            await asyncio.wait_for(ws.recv(), 1.0)
        await ws.send(json.dumps({"prompt": SOONER}))
        follow_up: list[dict[str, Any]] = []
        while not follow_up or follow_up[-1]["type"] not in ("done", "error"):
            event, _ = await read_event(ws)
            follow_up.append(event)
    heard = "Your parcel left Denver today. The driver"
    assert after[-1] == {"type": "interrupted", "played_ms": played, "heard": heard}
    # The third sentence was dropped: it never reached the caller, before or after.
    assert not any(e["type"] in ("sentence", "words") and e["index"] == 2 for e in before + after)
    assert follow_up[-1]["type"] == "done" and follow_up[-1]["metrics"]["history_turns"] == 1
    assert "".join(e["delta"] for e in follow_up if e["type"] == "text") == SOONER_ANSWER
    assert stack.prompted_with(SOONER)[-1] == prompt_with(Turn(STORY, heard, True), SOONER)


@pytest.mark.replayable
async def test_concurrent_conversations_never_mix(stack: Stack) -> None:
    a, b = session(), session()
    first = await asyncio.gather(
        invoke_http(stack.url, {"prompt": ORDER, "session_id": a}),
        invoke_http(stack.url, {"prompt": WEATHER, "session_id": b}),
    )
    assert all(r.ok for r in first), [r.errors for r in first]
    second_a = {"prompt": SOONER, "session_id": a, "interrupted": {"played_ms": 0}}
    second_b = {"prompt": SOONER, "session_id": b}
    results = await asyncio.gather(
        invoke_http(stack.url, second_a), invoke_http(stack.url, second_b)
    )
    assert all(r.ok for r in results), [r.errors for r in results]
    assert stack.stored(a) == [Turn(ORDER, "", True), Turn(SOONER, SOONER_ANSWER, False)]
    assert stack.stored(b) == [
        Turn(WEATHER, WEATHER_ANSWER, False),
        Turn(SOONER, SOONER_ANSWER, False),
    ]
    prompts = stack.prompted_with(SOONER)[-2:]
    expected = [
        prompt_with(Turn(ORDER, "", True), SOONER),
        prompt_with(Turn(WEATHER, WEATHER_ANSWER, False), SOONER),
    ]
    assert sorted(prompts, key=json.dumps) == sorted(expected, key=json.dumps)

"""Conversations through the real agent app on uvicorn (FakeTtsServer behind it, which gives
no word timestamps, so cuts here fall on whole sentences; the word-level cut runs on the real
model in test_agent_conversation_e2e.py): keys (AgentCore's session header, the payload's
session_id, the /ws connection), SSE `interrupted`, /ws `interrupt`, and no mixing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from bedrock_agentcore.runtime.models import SESSION_HEADER
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import ClientConnection, connect

from devkit.agent_client import invoke_http
from devkit.loopback import serve
from tests.support.fake_tts import FakeTtsServer
from tests.support.recording_script import RecordingScript
from voice_agent.app import create_app
from voice_agent.conversation import History, Turn
from voice_agent.settings import AgentSettings

# FakeTtsServer: each sentence is 3 frames of 960 bytes, reported as 60 ms of audio.
SENTENCE_MS = 60
FIRST = "Your order shipped today. It arrives on Thursday. Anything else?"
SECOND = "Sure. I changed the address."
LONG = "Hi. " + "More words keep coming. " * 40


def make_app(tts_url: str, source: RecordingScript, **settings: Any) -> Any:
    return create_app(AgentSettings(**settings), source, WebSocketTts(tts_url))


def ws_url(base: str) -> str:
    return base.replace("http", "ws") + "/ws"


def earlier_prompts(source: RecordingScript) -> dict[str, list[str]]:
    """Each prompt the LLM was given -> the prompts of the history it came with."""
    return {prompt: [t.prompt for t in history.turns] for prompt, history in source.prompts}


async def answer_events(ws: ClientConnection) -> list[dict[str, Any]]:
    """One answer's JSON events up to its last one (audio frames checked and skipped)."""
    events: list[dict[str, Any]] = []
    while True:
        event = json.loads(await ws.recv())
        events.append(event)
        if event["type"] == "audio":
            assert isinstance(await ws.recv(), bytes)
        if event["type"] in ("done", "interrupted") or (
            event["type"] == "error" and event["fatal"]
        ):
            return events


async def test_sse_turns_of_one_session_id_build_one_history() -> None:
    source = RecordingScript([FIRST, SECOND])
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:
        one = await invoke_http(base, {"prompt": "Where is my order?", "session_id": "s1"})
        two = await invoke_http(base, {"prompt": "Send it to my office.", "session_id": "s1"})
        other = await invoke_http(base, {"prompt": "Hello?", "session_id": "s2"})
        anonymous = await invoke_http(base, {"prompt": "Hello?"})
    assert one.ok and two.ok and other.ok and anonymous.ok
    assert (one.text, two.text, other.text, anonymous.text) == (FIRST, SECOND, FIRST, FIRST)
    histories = [history for _, history in source.prompts]
    assert histories[0] == History((), 0)
    assert histories[1] == History((Turn("Where is my order?", FIRST, False),), 1)
    assert histories[2] == History((), 0)  # another conversation: nothing of s1
    assert histories[3] == History((), 0)  # no session: a one-off answer
    assert (two.metrics["history_turns"], other.metrics["history_turns"]) == (1, 0)


async def test_the_agentcore_session_header_keys_the_conversation() -> None:
    source = RecordingScript([FIRST, SECOND])
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url, source)) as base,
        httpx.AsyncClient(timeout=30) as client,
    ):

        async def ask(prompt: str, session: str | None, **payload: Any) -> None:
            headers = {SESSION_HEADER: session} if session else {}
            url = base + "/invocations"
            r = await client.post(url, json={"prompt": prompt, **payload}, headers=headers)
            assert r.status_code == 200 and '"type": "done"' in r.text

        runtime_a, runtime_b = "a" * 36, "b" * 36
        await ask("first in A", runtime_a)
        await ask("second in A", runtime_a)
        await ask("first in B", runtime_b)
        await ask("named inside A", runtime_a, session_id="x")
        await ask("named, no runtime session", None, session_id="x")
    assert earlier_prompts(source) == {
        "first in A": [],
        "second in A": ["first in A"],
        "first in B": [],
        # A payload session_id names a conversation inside the runtime session, never
        # one of another session.
        "named inside A": [],
        "named, no runtime session": [],
    }


async def test_sse_interrupted_cuts_the_previous_answer_before_the_next_turn() -> None:
    source = RecordingScript([FIRST, SECOND])
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:
        app_url = base
        await invoke_http(app_url, {"prompt": "Where is my order?", "session_id": "s"})
        cut = {"prompt": "Office, please.", "session_id": "s", "interrupted": {"played_ms": 130}}
        r = await invoke_http(app_url, cut)
    assert r.ok
    # 130 ms: the first two 60 ms sentences ended, the third had begun.
    heard = "Your order shipped today. It arrives on Thursday."
    assert source.prompts[1][1].turns == (Turn("Where is my order?", heard, True),)


async def test_interrupted_without_a_previous_answer_is_a_clear_error() -> None:
    source = RecordingScript([FIRST])
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:
        no_session = await invoke_http(base, {"prompt": "x", "interrupted": {"played_ms": 5}})
        fresh = {"prompt": "x", "session_id": "new", "interrupted": {"played_ms": 5}}
        new_session = await invoke_http(base, fresh)
    for r in (no_session, new_session):
        assert r.order == ["error"] and r.errors[0]["code"] == "bad_request"
        assert "has none" in r.errors[0]["message"]
    assert source.prompts == [] and tts.sessions == []


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ({"session_id": ""}, "'session_id' must be a string of 1-256"),
        ({"session_id": "x" * 257}, "'session_id' must be a string of 1-256"),
        ({"session_id": 7}, "'session_id' must be a string"),
        ({"session_id": "\ud800"}, "'session_id' is not valid Unicode"),
        ({"interrupted": 100}, "'interrupted' must be an object with only 'played_ms'"),
        ({"interrupted": {"played_ms": 1, "x": 2}}, "with only 'played_ms'"),
        ({"interrupted": {"played_ms": -1}}, "'interrupted.played_ms' must be a number"),
        ({"interrupted": {"played_ms": True}}, "'interrupted.played_ms' must be a number"),
        ({"interrupted": {"played_ms": "10"}}, "'interrupted.played_ms' must be a number"),
        ({"interrupted": {"played_ms": 10**400}}, "'interrupted.played_ms' must be a number"),
    ],
)
async def test_bad_conversation_fields_get_clear_errors(extra: dict, needle: str) -> None:
    source = RecordingScript([FIRST])
    body = json.dumps({"prompt": "x", **extra})  # ASCII: "\ud800" travels as an escape
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url, source)) as base,
        httpx.AsyncClient() as client,
    ):
        r = await client.post(base + "/invocations", content=body)
    events = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events] == ["error"] and events[0]["code"] == "bad_request"
    assert needle in events[0]["message"]


async def test_ws_keeps_one_conversation_per_connection_unless_named() -> None:
    source = RecordingScript([FIRST, SECOND])
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:
        async with connect(ws_url(base)) as ws:
            for prompt in ("one", "two"):
                await ws.send(json.dumps({"prompt": prompt}))
                assert (await answer_events(ws))[-1]["type"] == "done"
            await ws.send(json.dumps({"prompt": "named", "session_id": "shared"}))
            await answer_events(ws)
        async with connect(ws_url(base)) as ws:
            await ws.send(json.dumps({"prompt": "new connection"}))
            await answer_events(ws)
        # The named conversation is the same one an SSE request names.
        await invoke_http(base, {"prompt": "over SSE", "session_id": "shared"})
    assert earlier_prompts(source) == {
        "one": [],
        "two": ["one"],
        "named": [],
        "new connection": [],
        "over SSE": ["named"],
    }


async def test_a_connections_own_conversation_goes_when_it_closes() -> None:
    source = RecordingScript([FIRST])
    async with FakeTtsServer() as tts:
        app = make_app(tts.url, source)
        async with serve(app) as base:
            async with connect(ws_url(base)) as ws:
                await ws.send(json.dumps({"prompt": "one"}))
                await answer_events(ws)
                assert len(app.state.conversations) == 1
            async with asyncio.timeout(5):
                while len(app.state.conversations):
                    await asyncio.sleep(0.01)


async def test_ws_interrupt_stops_the_answer_and_remembers_what_was_heard() -> None:
    source = RecordingScript([LONG, SECOND], tokens_per_s=100)
    async with (
        FakeTtsServer(synth_delay_s=0.05) as tts,
        serve(make_app(tts.url, source)) as base,
        connect(ws_url(base)) as ws,
    ):
        await ws.send(json.dumps({"prompt": "Tell me everything."}))
        sentences: list[dict[str, Any]] = []
        while len(sentences) < 2:
            frame = await ws.recv()
            if isinstance(frame, str) and json.loads(frame)["type"] == "sentence":
                sentences.append(json.loads(frame))
        # The caller played the first sentence (60 ms) and none of the second.
        await ws.send(json.dumps({"type": "interrupt", "played_ms": SENTENCE_MS + 10}))
        after: list[Any] = []
        while True:
            frame = await ws.recv()
            after.append(frame)
            if isinstance(frame, str) and json.loads(frame)["type"] == "interrupted":
                break
        last = json.loads(after[-1])
        # The LLM was stopped before the agent said what it kept (the script had seconds
        # of text left).
        assert source.endings == ["stopped"]
        # Nothing follows the `interrupted` event.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.3)
        await ws.send(json.dumps({"prompt": "And now?"}))
        follow_up = await answer_events(ws)
    assert [s["offset_ms"] for s in sentences] == [0, SENTENCE_MS]
    assert last == {"type": "interrupted", "played_ms": SENTENCE_MS + 10, "heard": "Hi."}
    assert follow_up[-1]["type"] == "done"
    assert source.prompts[1][1].turns == (Turn("Tell me everything.", "Hi.", True),)
    # The TTS session was cancelled, not closed: the rest was never synthesized.
    assert "cancel" in tts.sessions[0].types() and "close" not in tts.sessions[0].types()


async def test_ws_interrupt_after_the_answer_ended_cuts_that_answer() -> None:
    source = RecordingScript([FIRST, SECOND])
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url, source)) as base,
        connect(ws_url(base)) as ws,
    ):
        await ws.send(json.dumps({"type": "interrupt", "played_ms": 10}))
        nothing_yet = json.loads(await ws.recv())
        await ws.send(json.dumps({"prompt": "Where is my order?"}))
        await answer_events(ws)
        await ws.send(json.dumps({"type": "interrupt", "played_ms": SENTENCE_MS}))
        cut = json.loads(await ws.recv())
        await ws.send(json.dumps({"prompt": "Next."}))
        await answer_events(ws)
    assert nothing_yet["type"] == "error" and nothing_yet["code"] == "bad_request"
    assert "nothing to interrupt" in nothing_yet["message"]
    heard = "Your order shipped today."
    assert cut == {"type": "interrupted", "played_ms": SENTENCE_MS, "heard": heard}
    assert source.prompts[1][1].turns == (Turn("Where is my order?", heard, True),)


async def test_a_bad_interrupt_is_a_non_fatal_error_and_the_answer_goes_on() -> None:
    source = RecordingScript([LONG], tokens_per_s=200)
    async with (
        FakeTtsServer() as tts,
        serve(make_app(tts.url, source)) as base,
        connect(ws_url(base)) as ws,
    ):
        await ws.send(json.dumps({"prompt": "Go."}))
        await ws.send(json.dumps({"type": "interrupt", "played_ms": "soon"}))
        events = await answer_events(ws)
    errors = [e for e in events if e["type"] == "error"]
    assert events[-1]["type"] == "done"
    assert len(errors) == 1 and errors[0]["code"] == "bad_request"
    assert errors[0]["fatal"] is False and "'played_ms' must be a number" in errors[0]["message"]


async def test_concurrent_conversations_never_mix() -> None:
    source = RecordingScript([FIRST, SECOND], tokens_per_s=300)
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:

        async def talk(name: str) -> None:
            for n in range(3):
                payload = {"prompt": f"{name} {n}", "session_id": name}
                assert (await invoke_http(base, payload)).ok

        await asyncio.gather(*(talk(name) for name in ("ann", "bob", "cy")))
        # Two requests of one conversation at once run one after the other.
        same = [invoke_http(base, {"prompt": f"dup {n}", "session_id": "dup"}) for n in (0, 1)]
        assert all(r.ok for r in await asyncio.gather(*same))
    talks = [(p, h) for p, h in source.prompts if not p.startswith("dup")]
    for prompt, history in talks:
        name, n = prompt.split()
        assert [t.prompt for t in history.turns] == [f"{name} {k}" for k in range(int(n))]
        assert history.number == int(n)
    (first, first_history), (second, second_history) = source.prompts[-2:]
    assert first_history == History() and second_history.number == 1
    assert second_history.turns[0].prompt == first and {first, second} == {"dup 0", "dup 1"}


async def test_words_reach_the_caller_placed_on_the_answers_clock() -> None:
    source = RecordingScript([FIRST])
    async with FakeTtsServer() as tts, serve(make_app(tts.url, source)) as base:
        r = await invoke_http(base, {"prompt": "Where is my order?"})
    assert r.ok and len(r.words) == len(r.sentences) == 3
    sentence_offsets = [e["offset_ms"] for e in r.words]
    assert sentence_offsets == [0, SENTENCE_MS, 2 * SENTENCE_MS]
    for event in r.words:
        assert " ".join(w["text"] for w in event["words"]) == r.sentences[event["index"]]
    # Each `words` event comes after its sentence's `sentence` event, before its audio.
    kinds = [k for k in r.order if k in ("sentence", "words", "audio")]
    assert kinds[:3] == ["sentence", "words", "audio"]

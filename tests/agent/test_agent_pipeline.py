"""Relay order, stream vs batch, errors and cancel of the pipeline against FakeTtsServer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from kokoro_stream.websocket import WebSocketTts

from tests.support.fake_tts import SENTENCE as FAKE_SENTENCE
from tests.support.fake_tts import FakeSession, FakeTtsServer
from voice_agent.conversation import NO_HISTORY, History
from voice_agent.events import AudioEvent
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.payload import Invocation
from voice_agent.pipeline import VoicePipeline

ANSWER = "**Sure.** Your order shipped today. It arrives on Thursday! Anything else?"
LONG = "Hi. " + "More words keep coming. " * 40  # seconds of text after the first sentence


def kinds(events: list) -> list[str]:
    return ["audio" if isinstance(e, AudioEvent) else e["type"] for e in events]


async def collect(pipeline: VoicePipeline, inv: Invocation) -> list:
    return [e async for e in pipeline.run(inv)]


async def answer_on_fake_tts(mode: str, tokens_per_s: float) -> tuple[list, FakeSession]:
    """The pipeline's events for ANSWER in `mode`, and the one session the TTS double saw."""
    async with FakeTtsServer() as tts:
        source = ReplayedAnswerSource(ANSWER, tokens_per_s=tokens_per_s)
        pipeline = VoicePipeline(source, WebSocketTts(tts.url))
        events = await collect(pipeline, Invocation(prompt="hi", mode=mode))
    return events, tts.sessions[0]


async def test_stream_mode_relays_audio_while_text_still_arrives() -> None:
    events, session = await answer_on_fake_tts("stream", tokens_per_s=40)
    order = kinds(events)
    assert order[-1] == "done"
    # Interleaved: the first audio comes before the last text delta.
    assert order.index("audio") < len(order) - 1 - order[::-1].index("text")
    # Each sentence's `sentence` event precedes its audio; audio is tagged with its index.
    seen: set[int] = set()
    for e in events:
        if isinstance(e, AudioEvent):
            assert e.index in seen
        elif e["type"] == "sentence":
            seen.add(e["index"])
    sent_text = "".join(m["text"] for m in session.received if m["type"] == "text")
    # The answer goes out as written (markdown included): the server's front end reads it.
    assert sent_text == ANSWER
    assert session.types()[0] == "start" and session.types()[-1] == "close"
    assert session.types().count("text") > 3  # deltas went out as they arrived
    audio = b"".join(e.data for e in events if isinstance(e, AudioEvent))
    metrics = events[-1]["metrics"]
    assert len(audio) == session.audio_bytes == metrics["audio_bytes"]
    assert metrics["tts_reported_audio_bytes"] == session.audio_bytes
    assert metrics["sentences"] == len(FAKE_SENTENCE.findall(ANSWER))  # the double's own split
    assert 0 < metrics["time_to_first_text_ms"] < metrics["time_to_first_audio_ms"]
    assert metrics["time_to_first_audio_ms"] < metrics["total_ms"]
    assert metrics["text_source"].startswith("ReplayedAnswerSource")


async def test_batch_mode_sends_the_whole_answer_once_after_the_llm_finished() -> None:
    events, session = await answer_on_fake_tts("batch", tokens_per_s=200)
    order = kinds(events)
    assert order[-1] == "done"
    last_text = len(order) - 1 - order[::-1].index("text")
    assert order.index("audio") > last_text
    assert session.types() == ["start", "text", "close"]
    assert session.received[1]["text"] == ANSWER
    assert events[-1]["metrics"]["audio_bytes"] == session.audio_bytes


class FailingSource:
    def describe(self) -> str:
        return "FailingSource (test double that raises after two deltas)"

    async def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]:
        yield "Hello there. "
        await asyncio.sleep(0.05)
        yield "More"
        raise RuntimeError("model throttled")


async def test_text_source_failure_is_an_error_event_and_cancels_tts() -> None:
    async with FakeTtsServer() as tts:
        pipeline = VoicePipeline(FailingSource(), WebSocketTts(tts.url))
        events = await collect(pipeline, Invocation(prompt="hi"))
        await asyncio.wait_for(tts.sessions[0].closed.wait(), 5)
    assert events[-1]["type"] == "error" and events[-1]["code"] == "llm_error"
    assert "model throttled" in events[-1]["message"]
    assert "cancel" in tts.sessions[0].types()


async def test_fatal_tts_error_ends_the_stream_with_an_error() -> None:
    async with FakeTtsServer(fatal_on_text=" It") as tts:
        pipeline = VoicePipeline(ReplayedAnswerSource(ANSWER, 400), WebSocketTts(tts.url))
        events = await collect(pipeline, Invocation(prompt="hi"))
    assert events[-1] == {
        "type": "error",
        "code": "tts_internal",
        "message": "synthetic fatal failure",
        "fatal": True,
    }


async def test_unreachable_tts_is_a_clear_error() -> None:
    pipeline = VoicePipeline(
        ReplayedAnswerSource(ANSWER, 400), WebSocketTts("ws://127.0.0.1:9/nothing")
    )
    events = await collect(pipeline, Invocation(prompt="hi"))
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["code"] == "tts_unavailable"


def agents(task: asyncio.Task[object]) -> bool:
    """A task running the agent's code (not the fake TTS server's own connection tasks)."""
    code = getattr(task.get_coro(), "cr_code", None)
    return code is not None and "voice_agent" in code.co_filename


async def test_closing_the_stream_cancels_tts_and_leaves_no_tasks() -> None:
    async with FakeTtsServer(synth_delay_s=0.05) as tts:
        before = asyncio.all_tasks()
        pipeline = VoicePipeline(ReplayedAnswerSource(LONG, 20), WebSocketTts(tts.url))
        stream = pipeline.run(Invocation(prompt="hi"))
        async for event in stream:
            if isinstance(event, AudioEvent):
                break
        await stream.aclose()  # the caller went away mid-answer
        # Nothing is left but the connection's close (in the background, so the caller's
        # `interrupted` never waits for it): the LLM would otherwise go on for seconds.
        await asyncio.wait_for(pipeline.drain(), 5)
        leaked = {t for t in asyncio.all_tasks() - before if not t.done() and agents(t)}
        await asyncio.wait_for(tts.sessions[0].closed.wait(), 5)
        leaked.discard(asyncio.current_task())
        assert not leaked, leaked
    types = tts.sessions[0].types()
    assert "cancel" in types and "close" not in types


async def test_cancelling_the_consumer_task_cleans_up_too() -> None:
    async with FakeTtsServer(synth_delay_s=0.05) as tts:
        before = asyncio.all_tasks()
        pipeline = VoicePipeline(ReplayedAnswerSource(LONG, 20), WebSocketTts(tts.url))
        first_text = asyncio.Event()

        async def consume() -> None:
            async for event in pipeline.run(Invocation(prompt="hi")):
                if not isinstance(event, AudioEvent) and event["type"] == "text":
                    first_text.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first_text.wait(), 5)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.wait_for(pipeline.drain(), 5)  # the background close of the connection
        leaked = {t for t in asyncio.all_tasks() - before if not t.done() and agents(t)}
        await asyncio.wait_for(tts.sessions[0].closed.wait(), 5)
        leaked.discard(asyncio.current_task())
        assert not leaked, leaked
    assert "cancel" in tts.sessions[0].types()

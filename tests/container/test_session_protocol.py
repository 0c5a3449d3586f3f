"""Session protocol v1 against a real uvicorn server with the real model, over real sockets."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support import ws_frames

pytestmark = pytest.mark.model


@pytest.mark.replayable
async def test_text_and_binary_frames_both_produce_audio(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "start", "format": "pcm"})
        await ws_frames.send(ws, {"type": "text", "text": "Hello there."}, binary=True)
        await ws_frames.send(ws, {"type": "flush"})
        first = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
        await ws_frames.send(ws, {"type": "text", "text": "Good morning."})
        await ws_frames.send(ws, {"type": "flush"}, binary=True)
        second = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    assert ws_frames.types(first)[0] == "sentence_start"
    assert ws_frames.types(first)[-2:] == ["synthesis_complete", "flushed"]
    assert ws_frames.audio_by_sentence(first)[0] and ws_frames.audio_by_sentence(second)[1]
    assert ws_frames.controls(second)[0]["index"] == 1  # indices continue across utterances


@pytest.mark.replayable
async def test_sentences_arrive_in_order_with_continuous_indices(server):
    text = "One. Two is here. Three comes next. Four ends it."
    async with connect(server.ws) as ws:
        # Deltas split mid-word and mid-sentence, as an LLM sends them.
        for i in range(0, len(text), 3):
            await ws_frames.send(ws, {"type": "text", "text": text[i : i + 3]})
        await ws_frames.send(ws, {"type": "close"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("session_end"))
    starts = [c for c in ws_frames.controls(frames) if c["type"] == "sentence_start"]
    assert [s["index"] for s in starts] == [0, 1, 2, 3]
    assert [s["text"] for s in starts] == [
        "One.",
        "Two is here.",
        "Three comes next.",
        "Four ends it.",
    ]
    end = ws_frames.controls(frames)[-1]
    assert end["type"] == "session_end" and end["sentences"] == 4
    completes = [c for c in ws_frames.controls(frames) if c["type"] == "synthesis_complete"]
    assert end["audio_s"] == pytest.approx(sum(c["duration_s"] for c in completes), abs=0.01)
    assert len(ws_frames.audio_by_sentence(frames)) == 4


@pytest.mark.replayable
async def test_bare_text_frame_is_a_complete_utterance(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"text": "No full stop here"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
        # The session stays open after the utterance.
        await ws_frames.send(ws, {"text": "And again"})
        again = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    assert ws_frames.controls(frames)[0]["text"] == "No full stop here"
    assert ws_frames.controls(again)[0]["index"] == 1


@pytest.mark.replayable
async def test_flush_releases_unterminated_text_and_close_ends_session(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "text", "text": "Unfinished thought"})
        await ws_frames.send(ws, {"type": "flush"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
        await ws_frames.send(ws, {"type": "text", "text": "Last words"})
        await ws_frames.send(ws, {"type": "close"})
        tail = await ws_frames.read_until(ws, ws_frames.is_type("session_end"))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
    assert ws_frames.types(frames)[-1] == "flushed" and "audio" in ws_frames.types(frames)
    assert ws_frames.controls(tail)[0]["text"] == "Last words"
    assert ws_frames.controls(tail)[-1] == {
        "type": "session_end",
        "sentences": 2,
        "audio_s": pytest.approx(
            sum(
                c["duration_s"]
                for c in ws_frames.controls(frames + tail)
                if c["type"] == "synthesis_complete"
            ),
            abs=0.01,
        ),
    }


async def test_cancel_drops_queued_sentences_and_no_dropped_audio_follows(server):
    long_text = " ".join(f"Sentence number {i} is here to fill the queue." for i in range(6))
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "text", "text": long_text})
        before = await ws_frames.read_until(ws, ws_frames.is_type("sentence_start"))
        await ws_frames.send(ws, {"type": "cancel"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("cancelled"))
        cancelled = ws_frames.controls(frames)[-1]
        # After `cancelled`: new text works, and nothing of the dropped sentences arrives.
        await ws_frames.send(ws, {"type": "text", "text": "Fresh start."})
        await ws_frames.send(ws, {"type": "flush"})
        after = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    assert ws_frames.controls(before)[-1]["index"] == 0
    # Five sentences were released; the first may have been fully sent before the cancel landed.
    assert cancelled["dropped"] >= 4
    starts_after = [c for c in ws_frames.controls(after) if c["type"] == "sentence_start"]
    assert [s["text"] for s in starts_after] == ["Fresh start."]
    assert starts_after[0]["index"] >= 1
    assert ws_frames.types(after)[0] == "sentence_start"  # no stray audio frame before it


async def test_cancel_with_nothing_pending_reports_zero(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "cancel"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("cancelled"))
    assert ws_frames.controls(frames) == [{"type": "cancelled", "dropped": 0}]


@pytest.mark.replayable
@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("{not json", "invalid_json"),
        (b"\xff\xfe\x00garbage", "invalid_json"),
        ("[1, 2, 3]", "invalid_json"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": 7}', "unknown_type"),
        ('{"voice": "x"}', "unknown_type"),
        ('{"type": "text"}', "missing_text"),
        ('{"type": "text", "text": 42}', "missing_text"),
        ('{"type": "text", "text": "' + "a" * 10_001 + '"}', "text_too_long"),
        ('{"type": "start", "voice": "zz_nobody"}', "unknown_voice"),
        ('{"type": "text", "text": "hi.", "voice": "zz_nobody"}', "unknown_voice"),
        ('{"type": "start", "speed": 9}', "bad_parameter"),
        ('{"type": "start", "speed": NaN}', "bad_parameter"),
        ('{"type": "start", "speed": "fast"}', "bad_parameter"),
        ('{"type": "start", "format": "ogg"}', "bad_parameter"),
        ('{"type": "start", "sample_rate": 44100}', "bad_parameter"),
        ('{"type": "start", "voice": 5}', "bad_parameter"),
        ('{"type": "text", "text": "' + "b" * 70_000 + '"}', "frame_too_large"),
    ],
)
async def test_bad_frames_get_specific_non_fatal_errors(server, payload, code):
    async with connect(server.ws, max_size=None) as ws:
        await ws.send(payload)
        frames = await ws_frames.read_until(ws, ws_frames.is_type("error"), timeout=10)
        # The session goes on: the next utterance is synthesized.
        await ws_frames.send(ws, {"text": "Still here."})
        after = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    error = ws_frames.controls(frames)[-1]
    assert error["code"] == code and error["fatal"] is False and error["message"]
    assert [c["text"] for c in ws_frames.controls(after) if c["type"] == "sentence_start"] == [
        "Still here."
    ]


@pytest.mark.replayable
async def test_errors_in_between_never_lose_other_audio(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "text", "text": "First part. "})
        await ws.send("garbage")
        await ws_frames.send(ws, {"type": "text", "text": "Second part.", "speed": 99})
        await ws_frames.send(ws, {"type": "text", "text": "Third part."})
        await ws_frames.send(ws, {"type": "close"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("session_end"))
    assert [e["code"] for e in ws_frames.errors(frames)] == ["invalid_json", "bad_parameter"]
    starts = [c["text"] for c in ws_frames.controls(frames) if c["type"] == "sentence_start"]
    assert starts == ["First part.", "Third part."]


@pytest.mark.replayable
async def test_internal_failure_of_one_sentence_is_not_fatal(server, service, monkeypatch):
    real = service.engine.synthesize_timed

    def flaky(text, voice, speed=1.0, **options):
        if "explode" in text:
            raise RuntimeError("injected failure")
        return real(text, voice, speed, **options)

    monkeypatch.setattr(service.engine, "synthesize_timed", flaky)
    async with connect(server.ws) as ws:
        await ws_frames.send(
            ws, {"type": "text", "text": "Before it. Now explode please. After it."}
        )
        await ws_frames.send(ws, {"type": "close"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("session_end"))
    assert [(e["code"], e["fatal"]) for e in ws_frames.errors(frames)] == [("internal", False)]
    starts = [c["text"] for c in ws_frames.controls(frames) if c["type"] == "sentence_start"]
    assert starts == ["Before it.", "After it."]
    assert ws_frames.controls(frames)[-1]["sentences"] == 2


@pytest.mark.replayable
async def test_per_message_voice_and_speed(server, service):
    voices = service.engine.voice_names
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "start", "voice": voices[0], "speed": 1.0})
        await ws_frames.send(ws, {"type": "text", "text": "Same words here."})
        await ws_frames.send(ws, {"type": "flush"})
        normal = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
        await ws_frames.send(ws, {"type": "text", "text": "Same words here.", "speed": 2.0})
        await ws_frames.send(ws, {"type": "flush"})
        fast = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    normal_s = next(c for c in ws_frames.controls(normal) if c["type"] == "synthesis_complete")[
        "duration_s"
    ]
    fast_s = next(c for c in ws_frames.controls(fast) if c["type"] == "synthesis_complete")[
        "duration_s"
    ]
    assert fast_s < normal_s * 0.75

"""Word timestamps (protocol v1.1) from the real Kokoro-82M model: over the real server, and
the exact relation between the model's durations and its audio."""

from __future__ import annotations

import functools
import itertools
import re

import pytest
from websockets.asyncio.client import connect

from kokoro_server.engine import model as engine_module
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.word_times import SAMPLES_PER_UNIT
from tests.support import ws_frames

pytestmark = pytest.mark.model

TEXT = 'Dr. Smith paid $29.99, e.g. at 10:30 a.m. today! She said "yes" — and left… 今日は。'


def assert_words_fit(words: list[dict], sentence: str, audio_ms: float) -> None:
    """In order, not overlapping, inside the audio, and they give back the sentence."""
    # A written form may hold a space ("10:30 a.m."): compare without any whitespace.
    assert re.sub(r"\s", "", "".join(w["text"] for w in words)) == re.sub(r"\s", "", sentence)
    assert all(0 <= w["start_ms"] <= w["end_ms"] <= audio_ms for w in words)
    assert all(a["end_ms"] <= b["start_ms"] for a, b in itertools.pairwise(words))
    assert all(w["end_ms"] > w["start_ms"] for w in words if any(c.isalnum() for c in w["text"]))


async def test_every_sentence_gets_its_words_before_its_audio(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "start", "format": "pcm", "word_timestamps": True})
        await ws_frames.send(ws, {"type": "text", "text": TEXT})
        await ws_frames.send(ws, {"type": "close"})
        frames = await ws_frames.read_until(ws, ws_frames.is_type("session_end"))
    assert not ws_frames.errors(frames)
    starts = [c for c in ws_frames.controls(frames) if c["type"] == "sentence_start"]
    assert len(starts) >= 3
    audio = ws_frames.audio_by_sentence(frames)
    by_index = {c["index"]: c for c in ws_frames.controls(frames) if c["type"] == "words"}
    assert sorted(by_index) == [s["index"] for s in starts]
    for start in starts:
        # sentence_start, then words, then that sentence's audio.
        at = frames.index(start)
        assert ws_frames.types(frames)[at : at + 3] == ["sentence_start", "words", "audio"]
        audio_ms = len(audio[start["index"]]) / 2 / 24
        assert_words_fit(by_index[start["index"]]["words"], start["text"], audio_ms)
    spoken = {w["text"] for m in by_index.values() for w in m["words"]}
    assert {"Dr.", "$29.99,", "e.g.", "10:30 a.m.", '"yes"', "今日", "は", "。"} <= spoken
    # The dash is read as a pause, which the normalizer writes with the word after it.
    assert any(word.startswith("—") for word in spoken)


async def test_without_the_flag_a_v1_client_sees_no_change(server):
    async with connect(server.ws) as ws:
        await ws_frames.send(ws, {"type": "start", "word_timestamps": False})
        await ws_frames.send(ws, {"text": "Hi."})
        off = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
        await ws_frames.send(ws, {"type": "start", "word_timestamps": "yes"})
        bad = await ws_frames.read_until(ws, ws_frames.is_type("error"))
        await ws_frames.send(ws, {"text": "Bye."})
        after = await ws_frames.read_until(ws, ws_frames.is_type("flushed"))
    assert ws_frames.types(off)[:2] == [
        "sentence_start",
        "audio",
    ] and "words" not in ws_frames.types(off)
    assert bad[-1]["code"] == "bad_parameter" and bad[-1]["fatal"] is False
    assert "word_timestamps" in bad[-1]["message"]
    assert "words" not in ws_frames.types(after) and ws_frames.audio_by_sentence(after)


SENTENCES = ["Dr. Smith paid $5.", "Hi!"]


def test_audio_is_exactly_600_samples_per_duration_unit_at_any_speed(service):
    engine = service.engine
    voice = engine.default_voice
    for text in SENTENCES:
        [call] = plan_calls(engine.phonemize(text, voice).words, engine.vocab)
        total = {}
        for speed in (0.5, 1.0, 2.0):
            audio, durations = engine._infer(call, voice, speed)
            assert durations.shape == (len(call.tokens) + 2,)  # one per token and pad
            assert audio.size == SAMPLES_PER_UNIT * int(durations.sum())
            total[speed] = int(durations.sum())
        # The model divides by speed before rounding each token (and clamping it to >= 1
        # unit), so totals follow 1/speed up to that rounding: times need no scaling of ours.
        assert total[0.5] * 0.5 == pytest.approx(total[1.0], rel=0.1)
        assert total[2.0] * 2.0 == pytest.approx(total[1.0], rel=0.2)


def test_a_sentence_over_several_model_calls_maps_onto_one_timeline(service, monkeypatch):
    engine = service.engine
    text = "First, a clause; then a number: 1,234 — all one sentence."
    monkeypatch.setattr(engine_module, "plan_calls", functools.partial(plan_calls, limit=30))
    calls = engine_module.plan_calls(
        engine.phonemize(text, engine.default_voice).words, engine.vocab
    )
    assert len(calls) >= 3
    speech = engine.synthesize_timed(text, engine.default_voice)
    assert engine.word_timestamps  # every call's audio matched its durations
    words = [w.as_dict() for w in speech.words]
    assert_words_fit(words, text, speech.audio.size / 24)
    # Later calls' words are offset by the earlier calls' audio: the last word ends near the end.
    assert speech.audio.size / 24 - words[-1]["end_ms"] < 1000

"""Trimmed, then paced, on the real Kokoro-82M: the benchmark paragraph over the real server.

The first sound comes at once, the pauses between sentences are a reader's, every word's
timestamps still cover that word's sound, and the durations the server reports add up to
exactly the bytes it sent (so every played-audio clock built on them stays exact).
"""

from __future__ import annotations

import functools
import itertools
import re

import numpy as np
import pytest
from websockets.asyncio.client import connect

from bench.audible import first_audible_s, pause_between
from devkit.text import PARAGRAPH
from kokoro_server.engine import model as engine_module
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.pacing import Pacing, pace
from kokoro_server.text.segmenter import SentenceSegmenter
from tests.container.test_word_timestamps import assert_words_fit
from tests.support.one_shot import post
from tests.support.ws_frames import audio_by_sentence, controls, errors, is_type, read_until, send

pytestmark = [pytest.mark.model, pytest.mark.replayable]

RATE = 24_000


def level_dbfs(samples: np.ndarray) -> float:
    power = float(np.mean(samples.astype(np.float64) ** 2)) if samples.size else 0.0
    return 10 * np.log10(max(power, 1e-12))


def floats(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32767.0


async def paragraph_session(server, **start) -> tuple[list[dict], dict[int, bytes], dict]:
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "format": "pcm", "word_timestamps": True, **start})
        await send(ws, {"type": "text", "text": PARAGRAPH})
        await send(ws, {"type": "close"})
        frames = await read_until(ws, is_type("session_end"), timeout=180)
    assert not errors(frames)
    messages = controls(frames)
    starts = [m for m in messages if m["type"] == "sentence_start"]
    words = {m["index"]: m["words"] for m in messages if m["type"] == "words"}
    return starts, audio_by_sentence(frames), {"words": words, "messages": messages}


async def test_the_paragraph_starts_at_once_pauses_like_a_reader_and_keeps_its_words(server):
    starts, audio, extra = await paragraph_session(server)
    messages = extra["messages"]
    completes = {m["index"]: m for m in messages if m["type"] == "synthesis_complete"}
    assert len(starts) >= 4
    # First sound within 60 ms of the first byte (the model alone starts ~270 ms late).
    first = first_audible_s(audio[0], RATE)
    assert first is not None and first <= 0.060
    # Every duration is exact to the sample: they add up to the bytes sent, and so do the
    # session's total (what the agent's answer clock and the players count on).
    for start in starts:
        index = start["index"]
        assert len(audio[index]) % 48 == 0  # a whole number of milliseconds
        assert round(completes[index]["duration_s"] * 1000) * 48 == len(audio[index])
    total_s = sum(c["duration_s"] for c in completes.values())
    end = next(m for m in messages if m["type"] == "session_end")
    assert sum(len(a) for a in audio.values()) == round(total_s * RATE * 2)
    assert end["audio_s"] == pytest.approx(total_s, abs=1e-6)
    # A reader's pauses between sentences (the model's own: 0.93-1.00 s).
    for a, b in itertools.pairwise(starts):
        gap = pause_between(audio[a["index"]], audio[b["index"]], RATE)
        assert gap is not None
        if a["text"].rstrip()[-1] in ".!?":
            assert 0.150 <= gap <= 0.650, (a["text"], gap)
        else:  # the first clause, released at its comma: a short pause
            assert 0.100 <= gap <= 0.400, (a["text"], gap)
    for start in starts:
        assert_words_hold_their_sound(
            extra["words"][start["index"]], start["text"], audio[start["index"]]
        )


def assert_words_hold_their_sound(words: list[dict], text: str, pcm: bytes) -> None:
    """Each word's span is audible, and nearly all the sentence's sound lies in word spans.

    Were the times left where the untrimmed audio had them (about 250 ms later), the first
    words would point at the wrong sound and the last ones past it.
    """
    samples = floats(pcm)
    assert_words_fit(words, text, samples.size / 24)
    inside = np.zeros(samples.size, bool)
    for word in words:
        if not re.search(r"\w", word["text"]) or word["end_ms"] <= word["start_ms"]:
            continue
        span = samples[word["start_ms"] * 24 : word["end_ms"] * 24]
        # Audible (a short unstressed "it" measures about -46 dBFS; pauses are near -90).
        assert level_dbfs(span) > -50.0, (word, level_dbfs(span))
        inside[max(0, word["start_ms"] * 24 - 1200) : word["end_ms"] * 24 + 1200] = True
    energy = samples.astype(np.float64) ** 2
    assert energy[inside].sum() >= 0.97 * energy.sum()


async def test_pause_scale_stretches_only_the_pauses(server):
    text = "The first sentence is here. And the second one follows."
    lengths = {}
    for scale in (0.0, 1.0, 2.0):
        async with connect(server.ws) as ws:
            await send(ws, {"type": "start", "format": "pcm", "pause_scale": scale})
            await send(ws, {"text": text})
            frames = await read_until(ws, is_type("flushed"), timeout=120)
        assert not errors(frames)
        lengths[scale] = [len(a) // 48 for a in audio_by_sentence(frames).values()]
    # The model is deterministic: only the 400 ms after each sentence changes.
    assert [b - a for a, b in zip(lengths[1.0], lengths[2.0], strict=True)] == [400, 400]
    assert [b - a for a, b in zip(lengths[0.0], lengths[1.0], strict=True)] == [400, 400]


def test_nothing_audible_is_cut_from_any_piece(service):
    """Clipping, measured: what trimming removes from the paragraph's pieces is silence."""
    engine = service.engine
    segmenter = SentenceSegmenter(first_clause=True)
    pacing = Pacing()
    for piece in segmenter.feed(PARAGRAPH) + segmenter.flush():
        speech = engine.synthesize_timed(piece, engine.default_voice)
        paced = pace(speech.audio, speech.words, pacing, piece.ending)
        # The loudest cut sample stays below the -50 dBFS line the windows are judged by
        # (margins and fades sit on the quiet side of the sound), and the cut holds a
        # negligible part of the energy.
        assert paced.cut_peak_dbfs < -45.0, (piece, paced.cut_peak_dbfs)
        assert 150.0 < paced.lead_cut_ms < 400.0
        # Words move exactly with the cut: every word that starts after it, by its length.
        assert speech.words is not None and paced.words is not None
        for raw, moved in zip(speech.words, paced.words, strict=True):
            if raw.start_ms >= paced.lead_cut_ms:
                assert moved.start_ms == round(raw.start_ms - paced.lead_cut_ms), (raw, moved)
        kept = paced.audio[: paced.audio.size - round(paced.pause_ms * 24)]
        raw_energy = float(np.sum(speech.audio.astype(np.float64) ** 2))
        assert float(np.sum(kept.astype(np.float64) ** 2)) >= 0.999 * raw_energy


def test_a_piece_over_several_model_calls_is_trimmed_at_every_call(service, monkeypatch):
    engine = service.engine
    text = "First, a clause; then a number: 1,234 and the rest of one long sentence."
    monkeypatch.setattr(engine_module, "plan_calls", functools.partial(plan_calls, limit=30))
    speech = engine.synthesize_timed(text, engine.default_voice)
    assert len(speech.call_samples) >= 3 and set(speech.joins) <= {"clause", "hard"}
    paced = pace(
        speech.audio,
        speech.words,
        Pacing(),
        "sentence",
        call_samples=speech.call_samples,
        joins=speech.joins,
    )
    assert paced.words is not None
    pcm = (np.clip(paced.audio, -1, 1) * 32767).round().astype("<i2").tobytes()
    assert_words_hold_their_sound([w.as_dict() for w in paced.words], text, pcm)
    # Every call lost its own silence: far shorter than the model's audio.
    assert paced.audio.size < speech.audio.size - 0.5 * RATE * len(speech.call_samples)


def test_one_shot_ends_with_the_speech_and_checks_pause_scale(server):
    response = post(server, {"text": "One sentence. And another.", "format": "pcm"})
    assert response.status_code == 200
    pcm = response.content
    reported = float(response.headers["x-audio-duration-s"])
    assert len(pcm) == round(reported * RATE * 2)
    tail = floats(pcm)[-round(0.060 * RATE) :]  # the last 60 ms: margin and fade, no pause
    head = first_audible_s(pcm, RATE)
    assert head is not None and head <= 0.060
    assert level_dbfs(floats(pcm)[-round(0.5 * RATE) :]) > -50.0 > level_dbfs(tail[-240:])
    bad = post(server, {"text": "Hi.", "pause_scale": "slow"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_parameter"

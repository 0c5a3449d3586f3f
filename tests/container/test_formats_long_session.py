"""Ten minutes of audio in one session: no drift in G.711 (framed) or Ogg Opus.

Test double: the tone engine (tests/hardening/tone.py) stands in for the model, because ten
minutes of speech take the real model several minutes on two cores; everything after the
model is the real path: SynthesisService's encoding, the session's frame carry and framing,
the real uvicorn server and a websockets client. The tone's length is known exactly from each
sentence's text (10 ms per character plus 10 ms), and it varies sentence by sentence, so most
sentences end inside a G.711 frame.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import random
from collections.abc import Iterator

import av
import pytest
import soundfile as sf
from websockets.asyncio.client import connect

from devkit.tone import ToneSynthesisService, tone
from kokoro_server.config import Settings
from tests.support.servers import ThreadedServer
from tests.support.ws_frames import controls, errors, is_type, read_until, send

pytestmark = pytest.mark.slow  # ten-minute sessions in every format

MINUTES = 10
WORDS = ("alpha", "bravo", "delta", "echo", "golf", "hotel", "kilo", "lima", "mike", "oscar")


def long_text(seconds: float) -> str:
    """Sentences of 30-230 characters (0.3-2.3 s of tone each) adding up to `seconds`."""
    rng = random.Random(15)
    sentences, total = [], 0.0
    while total < seconds:
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 40))]
        sentence = " ".join(words).capitalize() + "."
        sentences.append(sentence)
        total += (len(sentence) + 1) / 100
    return " ".join(sentences)


@pytest.fixture(scope="module")
def tone_server(base_settings: Settings) -> Iterator[ThreadedServer]:
    # The whole text goes in one message, so every sentence is queued before the first is
    # encoded (the frame carry then always knows what follows): limits raised to fit it.
    settings = dataclasses.replace(
        base_settings,
        max_text_chars=100_000,
        max_buffered_chars=100_000,
        max_frame_bytes=128 * 1024,
        max_queued_sentences=1000,
    )
    service = ToneSynthesisService(settings)
    service.load()
    server = ThreadedServer(settings, service).start()
    yield server
    server.stop()
    service.shutdown()


async def long_session(server: ThreadedServer, **start: object) -> tuple[bytes, list, int]:
    """(the audio a client stores, the frames, total 24 kHz samples the engine made)."""
    async with connect(server.ws, max_size=None) as ws:
        await send(ws, {"type": "start", **start})
        await send(ws, {"text": long_text(MINUTES * 60)})
        frames = await read_until(ws, is_type("flushed"), timeout=280)
    texts = [c["text"] for c in controls(frames) if c["type"] == "sentence_start"]
    samples = sum(tone(text, "tone_low").size for text in texts)
    assert errors(frames) == [] and samples >= MINUTES * 60 * 24000
    stored = b"".join(f for f in frames if isinstance(f, bytes))
    return stored, frames, samples


def test_ten_minutes_of_framed_alaw_match_the_pcm_within_one_frame(tone_server):
    stored, frames, samples = asyncio.run(long_session(tone_server, format="alaw", frame_ms=20))
    assert {len(f) for f in frames if isinstance(f, bytes)} == {160}
    decoded, _ = sf.read(
        io.BytesIO(stored), format="RAW", subtype="ALAW", samplerate=8000, channels=1
    )
    assert 0 <= decoded.size - samples // 3 < 160


def test_ten_minutes_of_opus_match_the_pcm_to_the_sample(tone_server):
    stored, frames, samples = asyncio.run(long_session(tone_server, format="opus"))
    with av.open(io.BytesIO(stored)) as container:
        decoded = sum(frame.samples for frame in container.decode(audio=0))
    sentences = sum(1 for c in controls(frames) if c["type"] == "sentence_start")
    assert sentences > 300  # hundreds of chained streams, each trimmed to its own length
    assert decoded == 2 * samples  # 48 kHz out of 24 kHz in

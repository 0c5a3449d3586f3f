"""G.711 and Ogg Opus through the real server (uvicorn + websockets client, real model).

Round trips decode what a client receives with decoders other than the server's encoder:
libsndfile (soundfile) for G.711 and for each Ogg Opus sentence, FFmpeg's own Opus decoder
(PyAV's `opus`, not libopus, which encodes) and Ogg demuxer for the chained file a client
stores. Each decoded stream is compared with the `pcm` output of the same text.

Correlation thresholds, from the paragraph's four sentences (devkit.text.PARAGRAPH) measured with
the same decoders: G.711 0.99991 at the worst (its ~38 dB quantization noise), Ogg Opus at
24 kbit/s 0.978 (libsndfile at 24 kHz) and 0.990 (FFmpeg at 48 kHz). The tests ask for 0.999
and 0.95: room for other text, far above what a misaligned, wrongly decoded or truncated stream
gives (a 1-sample offset of speech already drops G.711 below 0.99, unrelated speech is near 0).
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import av
import numpy as np
import pytest
import soundfile as sf
import soxr
from websockets.asyncio.client import connect

from tests.support import model_replay
from tests.support.ogg_pages import BOS, EOS, opus_head, parse_pages
from tests.support.ws_frames import (
    audio_by_sentence,
    controls,
    errors,
    is_type,
    read_until,
    send,
)

pytestmark = pytest.mark.model

TEXT = "The package left Denver this morning. It should arrive on Thursday. Anything else?"
G711_MIN_CORR = 0.999
OPUS_MIN_CORR = 0.95


async def stream(server, text: str, **start: Any) -> list:
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", **start})
        await send(ws, {"text": text})
        return await read_until(ws, is_type("flushed"))


@pytest.fixture(scope="module")
def runs(server, service) -> dict[str, list]:
    """Every format of TEXT once. The model is deterministic on CPU
    (test_model_replay.py), so after the first format the model's calls are replayed."""
    starts: dict[str, dict[str, Any]] = {
        "pcm24": {"format": "pcm"},
        "pcm8": {"format": "pcm", "sample_rate": 8000},
        "ulaw": {"format": "ulaw"},
        "alaw20": {"format": "alaw", "sample_rate": 8000, "frame_ms": 20},
        "opus": {"format": "opus"},
    }

    async def all_runs() -> dict[str, list]:
        return {name: await stream(server, TEXT, **start) for name, start in starts.items()}

    with model_replay.replay(service):
        out = asyncio.run(all_runs())
    for frames in out.values():
        assert errors(frames) == []
    return out


def pcm_of(frames: list) -> np.ndarray:
    return np.frombuffer(b"".join(audio_by_sentence(frames).values()), "<i2").astype(np.float64)


def correlation(reference: np.ndarray, decoded: np.ndarray, max_lag: int = 2) -> float:
    """Best Pearson correlation within a few samples of offset (decoders resample)."""
    best = -1.0
    for lag in range(-max_lag, max_lag + 1):
        a = reference[max(0, -lag) : len(reference) - max(0, lag)]
        b = decoded[max(0, lag) : max(0, lag) + len(a)]
        n = min(len(a), len(b))
        best = max(best, float(np.corrcoef(a[:n], b[:n])[0, 1]))
    return best


def decode_g711(data: bytes, law: str) -> np.ndarray:
    samples, _ = sf.read(
        io.BytesIO(data),
        format="RAW",
        subtype=law.upper(),
        samplerate=8000,
        channels=1,
        dtype="int16",
    )
    return samples.astype(np.float64)


def decode_ffmpeg(data: bytes) -> tuple[np.ndarray, str, int]:
    """Every sample FFmpeg's Ogg demuxer and native Opus decoder get from a (chained) file."""
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.audio[0]
        chunks = [f.to_ndarray().reshape(-1) for f in container.decode(stream)]
        name, rate = stream.codec_context.name, stream.codec_context.sample_rate
    return np.concatenate(chunks).astype(np.float64) * 32768, name, rate


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x**2)))


def test_ulaw_decodes_to_the_8_khz_pcm_sample_for_sample(runs):
    frames = runs["ulaw"]
    starts = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert {(c["format"], c["sample_rate"]) for c in starts} == {("ulaw", 8000)}
    reference = pcm_of(runs["pcm8"])
    decoded = decode_g711(b"".join(audio_by_sentence(frames).values()), "ulaw")
    assert decoded.size == reference.size  # one byte per sample, nothing added or lost
    assert rms(decoded) > 0.02 * 32768
    assert correlation(reference, decoded, max_lag=0) > G711_MIN_CORR


def test_alaw_frame_ms_gives_exact_frames_and_keeps_the_length(runs):
    frames = runs["alaw20"]
    audio = [f for f in frames if isinstance(f, bytes)]
    assert audio and {len(f) for f in audio} == {160}
    completes = [c for c in controls(frames) if c["type"] == "synthesis_complete"]
    assert len(completes) == 3 and all(c["audio_bytes"] % 160 == 0 for c in completes)
    reference = pcm_of(runs["pcm8"])
    decoded = decode_g711(b"".join(audio), "alaw")
    # Sentence ends are carried into the next sentence's first frame, so only the utterance's
    # last frame is padded: the stream is the PCM plus less than one frame of silence, and
    # every sentence stays aligned with the PCM (padding per sentence would shift them).
    assert 0 <= decoded.size - reference.size < 160
    assert np.abs(decoded[reference.size :]).max(initial=0) <= 8  # A-law's silence: +-8
    assert correlation(reference, decoded[: reference.size], max_lag=0) > G711_MIN_CORR


def test_opus_sentence_is_an_ogg_stream_framed_by_pages(runs) -> None:
    frames = runs["opus"]
    starts = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert {(c["format"], c["sample_rate"]) for c in starts} == {("opus", 48000)}
    per_sentence: dict[int, list[bytes]] = {}
    current = None
    for frame in frames:
        if isinstance(frame, dict) and frame["type"] == "sentence_start":
            current = per_sentence.setdefault(frame["index"], [])
        elif isinstance(frame, bytes):
            assert current is not None
            current.append(frame)
    assert len(per_sentence) == 3
    serials = set()
    for sentence in per_sentence.values():
        pages = [parse_pages(frame) for frame in sentence]
        assert [len(p) for p in pages] == [3] + [1] * (len(pages) - 1)
        flat = [page for group in pages for page in group]
        assert flat[0].flags == BOS and flat[-1].flags & EOS
        assert opus_head(flat[0].body).input_rate == 24000
        assert [p.sequence for p in flat] == list(range(len(flat)))
        serials |= {p.serial for p in flat}
        assert len(flat) > 10  # about one page per 100 ms, not one per sentence
    assert len(serials) == 3  # chained streams need distinct serial numbers


def test_each_opus_sentence_decodes_to_its_pcm_and_its_first_pages_play_alone(runs):
    opus = audio_by_sentence(runs["opus"])
    pcm = {
        i: np.frombuffer(b, "<i2").astype(np.float64)
        for i, b in audio_by_sentence(runs["pcm24"]).items()
    }
    frames = [f for f in runs["opus"] if isinstance(f, bytes)]
    for index, data in opus.items():
        decoded, rate = sf.read(io.BytesIO(data), dtype="int16")
        assert rate == 24000 and decoded.size == pcm[index].size  # end trimming is exact
        assert correlation(pcm[index], decoded.astype(np.float64)) > OPUS_MIN_CORR
    # The first sentence's first frames (headers + 100 ms, then 100 ms each) arrive before its
    # last and decode on their own into the start of the sentence, up to their last granule.
    first = audio_by_sentence(runs["opus"])[0]
    assert len(b"".join(frames[:12])) < len(first)
    pages = parse_pages(b"".join(frames[:12]))
    head, _ = sf.read(io.BytesIO(b"".join(frames[:12])), dtype="int16")
    assert 2 * head.size == pages[-1].granule - opus_head(pages[0].body).pre_skip > 48000
    assert correlation(pcm[0][: head.size], head.astype(np.float64)) > OPUS_MIN_CORR


def test_stored_opus_answer_plays_as_one_file_in_ffmpeg(runs):
    stored = b"".join(f for f in runs["opus"] if isinstance(f, bytes))
    decoded, decoder, rate = decode_ffmpeg(stored)
    assert (decoder, rate) == ("opus", 48000)  # FFmpeg's own decoder, not libopus
    reference = soxr.resample(pcm_of(runs["pcm24"]), 24000, 48000)
    assert decoded.size == reference.size  # three chained links, each trimmed exactly
    assert correlation(reference, decoded) > OPUS_MIN_CORR


LONG = "This one long sentence keeps the server sending audio frames while the cancel lands"


async def cancel_in_flight(server, **start: Any) -> list:
    """Cancel right after the first audio frame, then speak one more short utterance."""
    async with connect(server.ws, max_queue=None) as ws:
        await send(ws, {"type": "start", **start})
        await send(ws, {"text": LONG + "."})
        frames = await read_until(ws, lambda f: isinstance(f, bytes))
        await send(ws, {"type": "cancel"})
        frames += await read_until(ws, is_type("cancelled"))
        await send(ws, {"text": "After."})
        return frames + await read_until(ws, is_type("flushed"))


def test_cancel_mid_sentence_leaves_a_stored_g711_stream_that_plays_to_the_cut(server):
    # 10 ms frames: about 600 frames for this sentence, so the cancel lands while they go out.
    frames = asyncio.run(cancel_in_flight(server, format="alaw", frame_ms=10))
    assert errors(frames) == []
    audio = audio_by_sentence(frames, cut_by_cancel=True)
    assert {len(f) for f in frames if isinstance(f, bytes)} == {80}
    complete = {c["index"] for c in controls(frames) if c["type"] == "synthesis_complete"}
    assert 0 not in complete, "the first sentence was sent whole: the cancel did not cut it"
    stored = b"".join(audio.values())
    decoded = decode_g711(stored, "alaw")
    cut = len(audio[0])
    assert decoded.size == len(stored) and cut > 0
    assert rms(decoded[cut:]) > 0.02 * 32768  # "After." follows the cut, audible


def test_cancel_mid_sentence_leaves_a_stored_opus_stream_that_plays_to_the_cut(server):
    frames = asyncio.run(cancel_in_flight(server, format="opus"))
    assert errors(frames) == []
    audio = audio_by_sentence(frames, cut_by_cancel=True)
    first = parse_pages(audio[0])
    received = first[-1].granule - opus_head(first[0].body).pre_skip  # 48 kHz samples
    after, _ = sf.read(io.BytesIO(audio[1]), dtype="int16")
    decoded, _, _ = decode_ffmpeg(b"".join(audio.values()))
    # The cut sentence plays up to its last received page, then "After." plays whole.
    assert decoded.size == received + 2 * after.size
    cut_alone, _ = sf.read(io.BytesIO(audio[0]), dtype="int16")
    assert 2 * cut_alone.size == received


@pytest.mark.parametrize(
    "start",
    [
        {"format": "ulaw", "sample_rate": 24000},
        {"format": "opus", "sample_rate": 16000},
        {"format": "mp3", "frame_ms": 20},
        {"format": "alaw", "frame_ms": 25},
    ],
)
async def test_bad_combinations_are_non_fatal_bad_parameter(server, start):
    frames = await stream(server, "Hi.", **start)
    (error,) = errors(frames)
    assert error["code"] == "bad_parameter" and error["fatal"] is False
    # The rejected start changed nothing: the sentence comes in the session default, pcm.
    (begin,) = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert (begin["format"], begin["sample_rate"]) == ("pcm", 24000)


async def test_format_switch_needs_a_matching_rate(server):
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "sample_rate": 16000})
        await send(ws, {"type": "start", "format": "ulaw"})  # 16000 still set: refused
        await send(ws, {"type": "start", "format": "ulaw", "sample_rate": 8000, "frame_ms": 20})
        await send(ws, {"type": "start", "format": "pcm"})  # frame_ms 20 still set: refused
        await send(ws, {"type": "start", "format": "pcm", "frame_ms": 0, "sample_rate": 16000})
        await send(ws, {"text": "Hi."})
        frames = await read_until(ws, is_type("flushed"))
    assert [e["code"] for e in errors(frames)] == ["bad_parameter", "bad_parameter"]
    (begin,) = [c for c in controls(frames) if c["type"] == "sentence_start"]
    assert (begin["format"], begin["sample_rate"]) == ("pcm", 16000)

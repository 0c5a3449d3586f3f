"""POST /invocations: one-shot synthesis with the real model over real HTTP."""

from __future__ import annotations

import io
import wave

import httpx
import numpy as np
import pytest
import soundfile as sf

from tests.support.one_shot import post

pytestmark = [pytest.mark.model, pytest.mark.replayable]


def test_default_is_wav_at_24k(server):
    response = post(server, {"text": "Hello from the one shot route."})
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(response.content)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        seconds = wav.getnframes() / 24000
    assert seconds == pytest.approx(float(response.headers["x-audio-duration-s"]), abs=0.01)
    assert 1.0 < seconds < 5.0


def test_provider_in_use_is_reported_by_ping_and_the_one_shot_route(server):
    # /ping keeps its contract (200 once ready) and names the provider; the one-shot answer
    # carries it in the header SageMaker hands back to InvokeEndpoint callers.
    ping = httpx.get(f"{server.http}/ping", timeout=5)
    assert ping.status_code == 200
    assert ping.json()["provider"] == "CPUExecutionProvider"  # no GPU on this machine
    response = post(server, {"text": "Which provider?"})
    assert response.headers["x-amzn-sagemaker-custom-attributes"] == (
        "provider=CPUExecutionProvider"
    )


def test_pcm_at_16k_and_mp3(server):
    pcm = post(server, {"text": "Short one.", "format": "pcm", "sample_rate": 16000})
    assert pcm.status_code == 200 and pcm.headers["content-type"] == "audio/pcm"
    assert pcm.headers["x-sample-rate"] == "16000"
    assert len(pcm.content) / 2 / 16000 == pytest.approx(
        float(pcm.headers["x-audio-duration-s"]), abs=0.02
    )
    mp3 = post(server, {"text": "Short one.", "format": "mp3"})
    assert mp3.status_code == 200 and mp3.headers["content-type"] == "audio/mpeg"
    assert mp3.content[0] == 0xFF and mp3.content[1] & 0xE0 == 0xE0  # MPEG frame sync
    assert len(mp3.content) < len(pcm.content)


def test_g711_and_opus_are_whole_files_of_the_same_duration(server):
    text = {"text": "First one here. Second one here."}
    pcm = post(server, {**text, "format": "pcm", "sample_rate": 8000})
    ulaw = post(server, {**text, "format": "ulaw"})
    assert ulaw.status_code == 200 and ulaw.headers["content-type"] == "audio/PCMU"
    assert ulaw.headers["x-sample-rate"] == "8000" and len(ulaw.content) == len(pcm.content) / 2
    decoded, _ = sf.read(
        io.BytesIO(ulaw.content), format="RAW", subtype="ULAW", samplerate=8000, channels=1
    )
    reference = np.frombuffer(pcm.content, "<i2") / 32768
    assert np.corrcoef(decoded, reference)[0, 1] > 0.999
    opus = post(server, {**text, "format": "opus"})
    assert opus.status_code == 200 and opus.headers["x-sample-rate"] == "48000"
    assert opus.headers["content-type"] == "audio/ogg; codecs=opus"
    assert opus.content.count(b"OpusHead") == 1  # one stream for the whole text
    samples, rate = sf.read(io.BytesIO(opus.content))
    assert (rate, samples.size) == (24000, 3 * len(pcm.content) / 2)


def test_long_text_is_split_into_sentences(server):
    response = post(server, {"text": "First one here. Second one here. Third.", "format": "pcm"})
    assert response.status_code == 200
    assert response.headers["x-sentences"] == "3"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"not json", 400, "invalid_json"),
        ({"voice": "jf_alpha"}, 400, "missing_text"),
        ({"text": "   "}, 400, "missing_text"),
        ({"text": "x" * 10_001}, 400, "text_too_long"),
        ({"text": "hi", "voice": "nobody"}, 400, "unknown_voice"),
        ({"text": "hi", "speed": 0}, 400, "bad_parameter"),
        ({"text": "hi", "format": "flac"}, 400, "bad_parameter"),
        ({"text": "hi", "sample_rate": 11025}, 400, "bad_parameter"),
        ({"text": "hi", "format": "ulaw", "sample_rate": 24000}, 400, "bad_parameter"),
        ({"text": "hi", "sample_rate": 48000}, 400, "bad_parameter"),  # wav default: not 48k
        ({"text": "hi", "format": "alaw", "frame_ms": 20}, 400, "bad_parameter"),
        (b"{" + b" " * 300_000 + b"}", 413, "frame_too_large"),
    ],
)
def test_bad_requests_get_json_errors(server, body, status, code):
    response = post(server, body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]


def test_wrong_method_is_rejected(server):
    assert httpx.get(f"{server.http}/invocations").status_code == 405

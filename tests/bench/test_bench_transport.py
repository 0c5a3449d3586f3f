"""The benchmarks' transport adapter streams through the agent's real transport classes.

Checked against the real server (real Kokoro-82M on CPU, on loopback) with the agent's
WebSocket transport: the adapter must deliver exactly the audio and sentence structure that
the demo client (`stream_text`) gets for the same text. The SageMaker transport shares the
adapter; only AWS itself cannot be reached from here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.transport import stream_with_transport
from demo.server_process import running_server
from demo.tts_client import stream_text, ws_url
from voice_agent.tts.websocket import WebSocketTts

TEXT = "Hello there. See you soon."
START = {"format": "pcm", "sample_rate": 24000}

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with running_server(timeout_s=180.0) as url:
        yield url


async def test_adapter_matches_the_demo_client(base_url: str) -> None:
    direct = await stream_text(base_url, [TEXT], start=START)
    via = await stream_with_transport(WebSocketTts(ws_url(base_url)), [TEXT], start=START)

    assert [s.text for s in via.sentences] == [s.text for s in direct.sentences]
    assert len(via.sentences) == 2
    assert via.first_audio_s is not None and via.first_audio_s <= via.total_s
    for sentence in via.sentences:
        assert sentence.first_byte_s is not None
        assert sum(sentence.frame_sizes) == len(sentence.audio) > 0
        assert sentence.complete["audio_bytes"] == len(sentence.audio)
    assert len(via.audio) == len(direct.audio)
    assert [c["type"] for c in via.controls][-1] == "session_end"


async def test_adapter_paces_deltas_and_surfaces_failures(base_url: str) -> None:
    via = await stream_with_transport(
        WebSocketTts(ws_url(base_url)), ["Hi ", "there."], tokens_per_s=20.0, start=START
    )
    assert [s.text for s in via.sentences] == ["Hi there."]
    # The second delta is sent 1/20 s after the first, so no audio can come before it.
    assert via.first_audio_s is not None and via.first_audio_s >= 0.05

    bad = {"format": "pcm", "sample_rate": 24000, "voice": "no_such_voice"}
    result = await stream_with_transport(WebSocketTts(ws_url(base_url)), ["Hi."], start=bad)
    assert any(e.get("code") == "unknown_voice" for e in result.errors)

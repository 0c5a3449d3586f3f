"""The demo's and the benchmarks' one TTS client (devkit.tts_client.stream_session) against
the real server (real Kokoro-82M on CPU) started as the image starts it (`container/serve`,
a child process on loopback), through the agent's WebSocket transport. The SageMaker
transport shares the client; only AWS itself cannot be reached from here."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from devkit.local_stack import tts_server
from devkit.tts_client import stream_session, websocket_transport, ws_url

TEXT = "Hello there. See you soon."

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with tts_server(timeout_s=180.0) as url:
        yield url


async def raw_frames(base_url: str, text: str) -> tuple[list[dict], list[bytes]]:
    """The same session read frame by frame with a bare WebSocket client."""
    controls: list[dict] = []
    audio: list[bytes] = []
    async with connect(ws_url(base_url), max_size=None) as ws:
        await ws.send(json.dumps({"type": "text", "text": text}))
        await ws.send(json.dumps({"type": "close"}))
        async for frame in ws:
            if isinstance(frame, bytes):
                audio.append(frame)
            else:
                controls.append(json.loads(frame))
    return controls, audio


async def test_stream_matches_what_the_server_sends(base_url: str) -> None:
    controls, audio = await raw_frames(base_url, TEXT)
    result = await stream_session(websocket_transport(base_url), [TEXT])

    assert [s.text for s in result.sentences] == [
        c["text"] for c in controls if c["type"] == "sentence_start"
    ]
    assert len(result.sentences) == 2
    assert result.first_audio_s is not None and result.first_audio_s <= result.total_s
    for sentence in result.sentences:
        assert sentence.first_byte_s is not None
        assert sum(sentence.frame_sizes) == len(sentence.audio) > 0
        assert sentence.complete["audio_bytes"] == len(sentence.audio)
    assert len(result.audio) == sum(len(a) for a in audio)
    assert [c["type"] for c in result.controls] == [c["type"] for c in controls]


async def test_deltas_are_paced_and_server_errors_surface(base_url: str) -> None:
    result = await stream_session(
        websocket_transport(base_url), ["Hi ", "there."], tokens_per_s=20.0
    )
    assert [s.text for s in result.sentences] == ["Hi there."]
    # The second delta is sent 1/20 s after the first, so no audio can come before it.
    assert result.first_audio_s is not None and result.first_audio_s >= 0.05

    bad = await stream_session(websocket_transport(base_url), ["Hi."], voice="no_such_voice")
    assert any(e.get("code") == "unknown_voice" for e in bad.errors)

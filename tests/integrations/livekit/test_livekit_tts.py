"""The LiveKit plugin through livekit-agents' own objects (tts.TTS, SynthesizeStream fed token
by token, ChunkedStream, AudioEmitter, TimedString) against the REAL Kokoro server on
loopback (real Kokoro-82M on CPU, tests/conftest.py's `server`), tapped to compare what
LiveKit produced with what the server said.
"""

from __future__ import annotations

import asyncio
import re
import socket
from typing import Any

import pytest
from kokoro_stream import SentenceStart, ServerError, SynthesisComplete
from kokoro_stream.websocket import WebSocketTts
from livekit.agents import APIConnectionError, APIConnectOptions
from livekit.agents.tts import SynthesizedAudio, TTSError
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from livekit.plugins import kokoro_sagemaker

from tests.support.pipecat_session_tap import SessionTap

pytestmark = pytest.mark.model

ANSWER = "Thanks for calling back. Your order shipped this morning."
NO_RETRY = APIConnectOptions(max_retry=0, timeout=30.0)


def llm_deltas(text: str) -> list[str]:
    """LLM-sized deltas: each word with its leading space."""
    return re.findall(r"\s*\S+", text)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tapped(server: Any, **kwargs: Any) -> tuple[kokoro_sagemaker.TTS, SessionTap]:
    tap = SessionTap(WebSocketTts(server.ws))
    return kokoro_sagemaker.TTS(transport=tap, **kwargs), tap


def pcm_of(events: list[SynthesizedAudio]) -> bytes:
    return b"".join(bytes(e.frame.data) for e in events)


def timed_words(events: list[SynthesizedAudio]) -> list[Any]:
    return [w for e in events for w in e.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, [])]


@pytest.mark.replayable
async def test_a_stream_fed_token_by_token_speaks_with_aligned_words(server: Any) -> None:
    tts, tap = tapped(server)
    stream = tts.stream(conn_options=NO_RETRY)
    for token in llm_deltas(ANSWER):
        stream.push_text(token)
    stream.end_input()
    events = [e async for e in stream]
    await tts.aclose()

    # Every byte the server reported is what LiveKit's emitter produced, at 24 kHz mono.
    assert len(pcm_of(events)) == tap.reported_audio_bytes() > 0
    assert {(e.frame.sample_rate, e.frame.num_channels) for e in events} == {(24000, 1)}
    assert events[-1].is_final and {e.segment_id for e in events} == {events[0].segment_id}
    # Text went out as it came (no tokenizer in front of the server's segmenter).
    texts = [m["text"] for m in tap.sent if m["type"] == "text"]
    assert texts == llm_deltas(ANSWER)
    assert tap.sent_types()[-1] == "close"
    # Words: the server's, shifted by the audio of earlier sentences, spaced as written.
    words = timed_words(events)
    server_words = [w for ev in tap.words() for w in ev.words]
    assert [w.strip() for w in words] == [w.text for w in server_words]
    assert "".join(words).strip() == ANSWER
    starts = [w.start_time for w in words]
    assert starts == sorted(starts)
    sentences = tap.events(SynthesisComplete)
    first_audio_s = int(sentences[0].audio_bytes) / (2 * 24000)
    second = tap.words()[1].words[0]
    assert words[len(tap.words()[0].words)].start_time == pytest.approx(
        first_audio_s + second.start_ms / 1000
    )
    assert words[-1].end_time <= len(pcm_of(events)) / (2 * 24000) + 1e-6


@pytest.mark.replayable
async def test_synthesize_is_one_chunk_of_the_whole_text(server: Any) -> None:
    tts, tap = tapped(server, sample_rate=16000)
    stream = tts.synthesize("Hello there. How are you?", conn_options=NO_RETRY)
    frame = await stream.collect()
    await tts.aclose()
    assert frame.sample_rate == 16000
    assert len(bytes(frame.data)) == tap.reported_audio_bytes() > 0
    assert [m["type"] for m in tap.sent][1:] == ["text", "close"]
    assert {c.sample_rate for c in tap.events(SentenceStart)} == {16000}


async def test_closing_the_stream_interrupts_the_server(server: Any) -> None:
    tts, tap = tapped(server)
    long_answer = " ".join(["This sentence is here to keep the server busy for a while."] * 6)
    stream = tts.stream(conn_options=NO_RETRY)
    for token in llm_deltas(long_answer):
        stream.push_text(token)
    stream.end_input()
    first = await asyncio.wait_for(stream.__anext__(), 60)
    assert first.frame.samples_per_channel > 0
    await stream.aclose()  # what LiveKit's agent does when the user barges in
    assert "cancel" in tap.sent_types()
    assert len(tap.events(SynthesisComplete)) < 6  # it did not speak it all
    # The server is still fine: the next reply speaks (LiveKit's own retries cover the
    # moment the server still counts the closed session as busy).
    again = tts.stream(conn_options=APIConnectOptions(max_retry=5, retry_interval=1.0))
    again.push_text("Sure.")
    again.end_input()
    assert pcm_of([e async for e in again])
    await tts.aclose()


@pytest.mark.replayable
async def test_a_sentence_error_is_reported_not_dropped(server: Any) -> None:
    tts, tap = tapped(server, voice="xx_nobody")
    errors: list[TTSError] = []
    tts.on("error", errors.append)
    stream = tts.synthesize("Hello.", conn_options=NO_RETRY)
    await stream.collect()
    await tts.aclose()
    [error] = tap.events(ServerError)
    assert error.code == "unknown_voice" and error.fatal is False
    assert errors and errors[0].recoverable
    assert "unknown_voice" in str(errors[0].error)


async def test_no_server_is_a_connection_error_naming_the_target() -> None:
    url = f"ws://127.0.0.1:{free_port()}"
    tts = kokoro_sagemaker.TTS.websocket(url)
    stream = tts.synthesize("Hello.", conn_options=NO_RETRY)
    with pytest.raises(APIConnectionError, match="cannot open a Kokoro session on ws://127"):
        await stream.collect()
    await tts.aclose()


def test_options_are_checked_when_the_tts_is_built() -> None:
    with pytest.raises(ValueError, match="sample_rate"):
        kokoro_sagemaker.TTS.websocket(sample_rate=48000)
    with pytest.raises(ValueError, match="speed"):
        kokoro_sagemaker.TTS.websocket(speed=3.0)


@pytest.mark.replayable
async def test_a_sentence_with_nothing_to_say_is_named_and_the_rest_is_spoken(server: Any) -> None:
    """An answer that ends on a line with nothing to say (a decoration; such a line inside
    the answer rides with the next sentence): the server's `nothing_to_say` reaches the
    LiveKit user as a recoverable error naming the sentence's index and text, and the lines
    before it are spoken."""
    tts, tap = tapped(server)
    errors: list[TTSError] = []
    tts.on("error", errors.append)
    stream = tts.stream(conn_options=NO_RETRY)
    for token in llm_deltas("First things first.\n\nThen the rest.\n\n⁂ ⁂"):
        stream.push_text(token)
    stream.end_input()
    events = [e async for e in stream]
    await tts.aclose()
    [notice] = tap.events(ServerError)
    assert (notice.code, notice.text, notice.fatal) == (
        "nothing_to_say",
        "⁂ ⁂",
        False,
    )
    [error] = errors
    assert error.recoverable
    assert f"in sentence {notice.index} ('⁂ ⁂')" in str(error.error)
    spoken = [c.text for c in tap.events(SentenceStart)]
    assert spoken == ["First things first.", "Then the rest."]
    assert len(pcm_of(events)) == sum(c.audio_bytes for c in tap.events(SynthesisComplete))

"""A real Pipecat pipeline speaking through the real Kokoro server (real model, CPU, loopback)."""

from __future__ import annotations

import asyncio

import pipecat.frames.frames as pipecat_frames
import pytest
from kokoro_stream import Flushed, SentenceStart, SynthesisComplete
from kokoro_stream.websocket import WebSocketTts
from pipecat.metrics.metrics import TTSUsageMetricsData

from pipecat_kokoro import KokoroStreamTTSService, KokoroTTSSettings, KokoroWebSocketTTSService
from tests.support.pipecat_pipeline import (
    BotPipeline,
    audio_bytes,
    presentation_times,
    spoken_text,
    ttfb_reports,
    tts_frames,
)
from tests.support.pipecat_session_tap import SessionTap

pytestmark = pytest.mark.model

ANSWER = "Your order shipped today. It should arrive on Friday. Anything else?"


async def until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.05)


def tapped_service(server, **kwargs) -> tuple[KokoroStreamTTSService, SessionTap]:
    tap = SessionTap(WebSocketTts(server.ws))
    return KokoroStreamTTSService(transport=tap, **kwargs), tap


@pytest.mark.replayable
async def test_multi_sentence_answer_frames_in_order_with_the_servers_audio(server) -> None:
    tts, tap = tapped_service(server)
    async with BotPipeline(tts) as bot:
        mark = await bot.speak(ANSWER)
        await bot.down.wait_for(
            lambda f: isinstance(f, pipecat_frames.LLMFullResponseEndFrame), after=mark
        )
        frames = tts_frames(bot.down.frames[mark:])

    kinds = [type(f) for f in frames]
    assert (
        kinds[0] is pipecat_frames.TTSStartedFrame and kinds[-1] is pipecat_frames.TTSStoppedFrame
    )
    assert (
        kinds.count(pipecat_frames.TTSStartedFrame)
        == kinds.count(pipecat_frames.TTSStoppedFrame)
        == 1
    )
    assert pipecat_frames.TTSAudioRawFrame in kinds
    # The server cut three sentences; every byte it reported reached the pipeline.
    assert len(tap.events(SynthesisComplete)) == 3
    assert audio_bytes(frames) == tap.reported_audio_bytes() > 0
    assert all(
        f.sample_rate == 24000 and f.num_channels == 1
        for f in frames
        if isinstance(f, pipecat_frames.TTSAudioRawFrame)
    )
    # The text that reached the assistant context is the answer, word for word.
    assert spoken_text(frames).split() == ANSWER.split()
    text_frames = [f for f in frames if isinstance(f, pipecat_frames.TTSTextFrame)]
    if tap.words():
        # A v1.1 server: one frame per word, timed on the playback clock, in order, each with
        # the space the text has before it (so the context reads as written).
        assert len(text_frames) == len(ANSWER.split())
        joined = ""
        for f in text_frames:  # as Pipecat's context aggregator joins them
            joined += "" if f.includes_inter_frame_spaces or not joined else " "
            joined += f.text
        assert joined == " ".join(ANSWER.split())
        pts = presentation_times(text_frames)
        assert all(pts)
        assert pts == sorted(pts)
    else:
        # A v1 server sends no words: Pipecat times each sentence at the end of its audio.
        assert [f.text for f in text_frames] == [c.text for c in tap.events(SentenceStart)]
    # Deltas went in as they arrived (no splitter in front of the server), then one flush.
    sent = tap.sent_types()
    assert sent[0] == "start" and sent.count("text") == len(ANSWER.split())
    assert sent[-1] == "flush" and sent.count("flush") == 1


@pytest.mark.replayable
async def test_ttfb_once_per_turn_and_the_pipeline_sample_rate(server) -> None:
    tts, tap = tapped_service(server)
    async with BotPipeline(tts, sample_rate=16000) as bot:
        first = await bot.speak("One. Two.")
        second = await bot.speak("Three. Four.")
        frames = list(bot.down.frames)

    assert len(ttfb_reports(frames[first:second], tts)) == 1
    assert len(ttfb_reports(frames[second:], tts)) == 1
    audio = [f for f in frames if isinstance(f, pipecat_frames.TTSAudioRawFrame)]
    assert audio and {f.sample_rate for f in audio} == {16000}
    # The server was asked for 16 kHz (one of its rates), so no resampling happened here.
    assert {c.sample_rate for c in tap.events(SentenceStart)} == {16000}
    assert audio_bytes(frames) == tap.reported_audio_bytes()


@pytest.mark.replayable
async def test_a_rate_the_server_lacks_is_resampled_from_24k(server) -> None:
    tts, tap = tapped_service(server)
    async with BotPipeline(tts, sample_rate=48000) as bot:
        await bot.speak("Resampled speech.")
        frames = list(bot.down.frames)

    assert {c.sample_rate for c in tap.events(SentenceStart)} == {24000}
    audio = [f for f in frames if isinstance(f, pipecat_frames.TTSAudioRawFrame)]
    assert {f.sample_rate for f in audio} == {48000}
    # Twice the rate, twice the bytes: the resampler is flushed at the end of the turn, so
    # its filter's last ~37 ms are not lost (a few samples of rounding at most).
    assert abs(audio_bytes(frames) - 2 * tap.reported_audio_bytes()) <= 2 * 8


@pytest.mark.replayable
async def test_voice_and_speed_change_between_turns(server) -> None:
    tts, tap = tapped_service(server, voice="jf_alpha")
    async with BotPipeline(tts) as bot:
        await bot.speak("Hello there.")
        await bot.queue(
            pipecat_frames.TTSUpdateSettingsFrame(
                delta=KokoroTTSSettings(voice="jf_nezumi", speed=1.5)
            )
        )
        await bot.speak("Hello there.")

    starts = [m for m in tap.sent if m["type"] == "start"]
    assert [(s.get("voice"), s.get("speed")) for s in starts] == [
        ("jf_alpha", None),
        ("jf_nezumi", 1.5),
    ]
    first_bytes, second_bytes = (c.audio_bytes for c in tap.events(SynthesisComplete))
    assert second_bytes < first_bytes * 0.8  # the same text spoken 1.5x as fast


@pytest.mark.replayable
async def test_the_websocket_service_takes_a_base_url(server) -> None:
    tts = KokoroWebSocketTTSService(url=f"ws://127.0.0.1:{server.port}")
    assert tts.url == server.ws
    async with BotPipeline(tts) as bot:
        mark = await bot.speak("Short and sweet.")
        assert audio_bytes(bot.down.frames[mark:]) > 0


async def test_a_turn_idle_past_pipecats_context_timeout_is_still_flushed(server) -> None:
    # Pipecat flushes only while the turn's audio context is open. Here it times out (3 s
    # without audio) before the reply ends; the server must still get the flush, or it
    # would join the unterminated tail to the next turn's first sentence.
    tts, tap = tapped_service(server, stop_frame_timeout_s=3.0)
    async with BotPipeline(tts) as bot:
        await bot.queue(pipecat_frames.LLMFullResponseStartFrame())
        for delta in ("Hello", " there.", " And", " the", " rest"):
            await bot.queue(pipecat_frames.LLMTextFrame(delta))
        first = await bot.down.wait_for(lambda f: isinstance(f, pipecat_frames.TTSAudioRawFrame))
        assert isinstance(first, pipecat_frames.TTSAudioRawFrame) and first.context_id
        # Pipecat removes the context after 3 s without audio (no frame says so: the service
        # pushes its own stop frames, and only at a turn's end).
        await asyncio.wait_for(until(lambda: not tts.audio_context_available(first.context_id)), 30)
        assert not tap.events(Flushed)  # the tail is still open on the server
        await bot.queue(pipecat_frames.LLMFullResponseEndFrame())
        await asyncio.wait_for(until(lambda: bool(tap.events(Flushed))), 60)
        nxt = await bot.speak("Next one.")
        frames = list(bot.down.frames[nxt:])

    assert [c.text for c in tap.events(SentenceStart)][-1] == "Next one."
    assert spoken_text(tts_frames(frames)).split() == ["Next", "one."]


@pytest.mark.replayable
async def test_usage_metrics_count_every_character_sent_to_the_server(server) -> None:
    """With Pipecat's usage metrics on, each turn reports the characters the service sent,
    exactly what the server was given to speak."""
    tts, tap = tapped_service(server)
    async with BotPipeline(tts, usage_metrics=True) as bot:
        await bot.speak(ANSWER)
        frames = list(bot.down.frames)

    usage = [
        data.value
        for frame in frames
        if isinstance(frame, pipecat_frames.MetricsFrame)
        for data in frame.data
        if isinstance(data, TTSUsageMetricsData) and data.processor == tts.name
    ]
    sent = [m["text"] for m in tap.sent if m["type"] == "text"]
    assert usage and sum(usage) == sum(len(text) for text in sent)

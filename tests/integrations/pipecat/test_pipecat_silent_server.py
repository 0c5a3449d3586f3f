"""A server that goes silent while it owes an answer: the Pipecat service ends the turn, says
so in an ErrorFrame and opens a new session, instead of waiting for Pipecat's 20 s stop-frame
timeout and speaking every later turn into the stalled session.

The server is tests/support/fake_tts.py's FakeTtsServer (a double of the Kokoro server on a
real loopback socket): the real server cannot be made to stall on cue.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from kokoro_stream.websocket import WebSocketTts
from pipecat.frames.frames import ErrorFrame, TTSAudioRawFrame

from pipecat_kokoro import KokoroStreamTTSService
from tests.support.fake_tts import FakeTtsServer
from tests.support.pipecat_pipeline import BotPipeline
from tests.support.pipecat_session_tap import SessionTap

# Pipecat's pipeline takes seconds to import in each worker: kept out of the edit loop.
pytestmark = pytest.mark.slow


async def test_a_stalled_turn_ends_is_reported_and_the_session_reopens() -> None:
    async with FakeTtsServer(fault="stall", fault_after_frames=1) as fake:
        tap = SessionTap(WebSocketTts(fake.url))
        tts = KokoroStreamTTSService(
            transport=tap, answer_timeout_s=0.5, reconnect_backoff_s=0.1, keepalive_s=None
        )
        async with BotPipeline(tts) as bot:
            mark = await bot.reply("Hello there. This one never ends.")
            began = time.perf_counter()
            await bot.turn_done(mark, timeout=10)  # well before the 20 s stop-frame timeout
            ended_after = time.perf_counter() - began
            lost = await bot.up.wait_for(
                lambda f: isinstance(f, ErrorFrame) and "no answer for 0.5 s" in f.error
            )
            async with asyncio.timeout(5):
                while tap.connections < 2:  # the reconnect, in the background
                    await asyncio.sleep(0.05)
            frames = list(bot.down.frames[mark:])
    assert ended_after < 5.0
    assert isinstance(lost, ErrorFrame) and "session lost" in lost.error
    assert sum(isinstance(f, TTSAudioRawFrame) for f in frames) == 1  # the frame before it
    assert fake.sessions[0].types()[-1] == "flush"


async def test_a_server_quiet_while_the_llm_thinks_is_not_lost() -> None:
    async with FakeTtsServer() as fake:
        tap = SessionTap(WebSocketTts(fake.url))
        tts = KokoroStreamTTSService(transport=tap, answer_timeout_s=0.3, keepalive_s=None)
        async with BotPipeline(tts) as bot:
            first = await bot.speak("One.")
            await asyncio.sleep(1.2)  # idle, owing nothing: four times the answer timeout
            second = await bot.reply("Two, after a while.", tokens_per_s=4)  # a token per 0.25 s
            await bot.turn_done(second, timeout=10)
            errors = [f for f in bot.up.frames if isinstance(f, ErrorFrame)]
    assert first < second and errors == []
    assert tap.connections == 1

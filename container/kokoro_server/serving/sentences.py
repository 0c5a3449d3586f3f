"""Text -> the pieces the model speaks, the one path of both routes.

Markdown, emoji and control characters go first (text/markdown.py), then the segmenter cuts
what is left into sentences, none over the phoneme limit (text/segmenter.py). The session
feeds it delta by delta; the one-shot route gives it the whole text at once.
"""

from __future__ import annotations

from kokoro_server.config import Settings
from kokoro_server.text.emoji_speech import EmojiMode
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.segmenter import Piece, SentenceSegmenter


def language_of(voice: str | None) -> str:
    """The language markdown notices are read in: the voice's, English if it names none."""
    return LANGUAGES.get((voice or "a")[:1], "en-us")


class Sentences:
    """Markdown read for speech, then cut into sentences.

    first_clause: a stream's first piece may end at a clause, so its audio starts sooner
    (the session); a whole text waits for full sentences (the one-shot route)."""

    def __init__(self, settings: Settings, *, first_clause: bool, emoji: EmojiMode = "drop"):
        self.markdown = MarkdownSpeech(emoji=emoji)
        self.segmenter = SentenceSegmenter(
            first_clause=first_clause,
            first_clause_min_chars=settings.first_clause_min_chars,
            max_chars=settings.max_segment_chars,
        )

    @property
    def buffered_chars(self) -> int:
        """Text received that is not a sentence yet."""
        return self.markdown.buffered_chars + self.segmenter.buffered_chars

    def feed(self, delta: str, language: str) -> list[Piece]:
        """The sentences a delta completes."""
        return self.segmenter.feed(self.markdown.feed(delta, language))

    def flush(self, language: str) -> list[Piece]:
        """Whatever is still held, as the last sentences of the utterance."""
        return self.segmenter.feed(self.markdown.flush(language)) + self.segmenter.flush()

    def whole(self, text: str, language: str) -> list[Piece]:
        """A whole text at once (the one-shot route)."""
        return self.segmenter.feed(self.markdown.convert(text, language)) + self.segmenter.flush()

    def reset(self) -> None:
        """Forget what is held (a cancel)."""
        self.segmenter.reset()
        self.markdown.reset()

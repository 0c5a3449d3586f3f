"""What a session's stages pass each other (session.py), and the options a session keeps."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from kokoro_server.serving.protocol import Options
from kokoro_server.serving.synthesis import Synthesized
from kokoro_server.text.pronunciation import Lexicon

NOTICE_CHARS = 200


@dataclass
class Sentence:
    text: str
    voice: str
    speed: float
    format: str
    sample_rate: int
    generation: int
    frame_ms: int = 0
    ending: str = "end"  # what ended the piece (segmenter): picks the pause after its audio
    queued_at: float = field(default_factory=time.perf_counter)
    # Framing of the sentence queued right after this one, once it is (G.711 frame carry).
    next_framing: tuple[object, ...] | None = None

    @property
    def framing(self) -> tuple[object, ...] | None:
        return (self.generation, self.format, self.frame_ms) if self.frame_ms else None


@dataclass
class Marker:
    kind: Literal["flush", "close"]
    generation: int


@dataclass
class Failed:
    code: str
    message: str


@dataclass
class Notice:
    """An utterance with nothing to say: reported at its place in the stream."""

    text: str
    generation: int


@dataclass
class Utterance:
    """What the text since the last flush was, to tell when none of it could be spoken."""

    text: str = ""  # its start, for the notice
    sentences: int = 0

    def received(self, text: str) -> None:
        if len(self.text) < NOTICE_CHARS:
            self.text = (self.text + text)[:NOTICE_CHARS]

    @property
    def unspoken(self) -> bool:
        return self.sentences == 0 and bool(self.text.strip())


Work = Sentence | Marker | Notice
Done = tuple[Sentence, Synthesized | Failed] | tuple[Marker | Notice, None]


@dataclass
class SessionOptions:
    """What `start` set, for the sentences that follow it."""

    # sample_rate None: the format's default (24000 for pcm, 8000 for G.711, 48000 opus).
    defaults: Options
    lexicon: Lexicon | None = None
    word_timestamps: bool = False  # v1.1: a `words` message before each sentence's audio
    pause_scale: float = 1.0  # scales every pause the server adds (pacing.py)


def merge(base: Options, override: Options) -> Options:
    return Options(
        voice=override.voice or base.voice,
        speed=override.speed if override.speed is not None else base.speed,
        format=override.format or base.format,
        sample_rate=override.sample_rate or base.sample_rate,
        frame_ms=override.frame_ms if override.frame_ms is not None else base.frame_ms,
    )

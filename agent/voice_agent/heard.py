"""What the caller heard of one answer, from the events it was sent.

`AnswerTimeline` watches the events that reached the caller (`sentence`, `words`, `done`)
and knows every delivered sentence's place on the answer's clock (milliseconds from the
answer's first audio sample) and, with word timestamps, every word's. `heard(played_ms)` is
the answer cut to the words whose audio ended at or before `played_ms`.

Only delivered events count: a sentence the agent had from the TTS but never sent on cannot
have been heard, whatever `played_ms` a caller claims, and neither can a word whose audio had
not reached the caller: the cut is at min(played_ms, audio delivered). Delivered audio is
counted exactly for the formats whose bytes say their length (pcm, wav, ulaw, alaw); for mp3
and opus a sentence counts as delivered once the next one (or `done`) went out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import AgentEvent, AudioEvent, EventType


@dataclass(frozen=True)
class TimedWord:
    text: str
    end_ms: float  # on the answer's clock


# Audio bytes per sample, for the formats whose byte count gives their duration.
_BYTES_PER_SAMPLE = {"pcm": 2, "wav": 2, "ulaw": 1, "alaw": 1}
_WAV_HEADER = 44  # each sentence's WAV file starts with one


@dataclass
class DeliveredSentence:
    index: int
    text: str
    offset_ms: float  # where its audio starts on the answer's clock
    words: tuple[TimedWord, ...] | None = None  # None: the TTS gave no word timestamps
    audio_bytes: int = 0  # of its audio, what went out to the caller
    format: str = ""
    sample_rate: int = 0

    def delivered_ms(self) -> float:
        """How much of its audio the caller was sent (0 where the bytes cannot say)."""
        width = _BYTES_PER_SAMPLE.get(self.format)
        if width is None or self.sample_rate <= 0:
            return 0.0
        data = self.audio_bytes - (_WAV_HEADER if self.format == "wav" else 0)
        return 1000.0 * max(0, data) / (width * self.sample_rate)


@dataclass(frozen=True)
class Heard:
    text: str  # the heard part of the answer, spaced as the sentences were written
    everything: bool  # every delivered word was heard, and the answer was complete


@dataclass
class AnswerTimeline:
    sentences: list[DeliveredSentence] = field(default_factory=list)
    complete: bool = False  # `done` was delivered
    audio_ms: float | None = None  # the whole answer's audio, known once complete

    def observe(self, event: AgentEvent) -> None:
        """Record one event that reached the caller."""
        if isinstance(event, AudioEvent):
            sentence = self._sentence(event.index)
            if sentence is not None:
                sentence.audio_bytes += len(event.data)
                sentence.format, sentence.sample_rate = event.format, event.sample_rate
            return
        kind = event.get("type")
        if kind == EventType.SENTENCE:
            offset = float(event.get("offset_ms", 0.0))
            self.sentences.append(DeliveredSentence(event["index"], event["text"], offset))
        elif kind == EventType.WORDS:
            self._words(event)
        elif kind == EventType.DONE:
            self.complete = True
            self.audio_ms = 1000.0 * float(event["metrics"].get("audio_seconds", 0.0))

    def _words(self, event: dict[str, Any]) -> None:
        sentence = self._sentence(event["index"])
        if sentence is None:
            return
        offset = float(event["offset_ms"])
        sentence.words = tuple(
            TimedWord(str(w["text"]), offset + float(w["end_ms"])) for w in event["words"]
        )

    def _sentence(self, index: int) -> DeliveredSentence | None:
        for sentence in reversed(self.sentences):
            if sentence.index == index:
                return sentence
        return None

    def delivered_ms(self) -> float:
        """How far along the answer's clock audio reached the caller."""
        if self.complete and self.audio_ms is not None:
            return self.audio_ms
        if not self.sentences:
            return 0.0
        last = self.sentences[-1]  # every sentence before it was sent whole
        return last.offset_ms + last.delivered_ms()

    def heard(self, played_ms: float | None = None) -> Heard:
        """The answer as far as `played_ms`, and never past the audio delivered; None: every
        delivered sentence (the agent cannot know how much of it was played)."""
        if played_ms is not None:
            played_ms = min(played_ms, self.delivered_ms())
        parts: list[str] = []
        everything = self.complete
        for position, sentence in enumerate(self.sentences):
            if played_ms is None:
                parts.append(sentence.text)
                continue
            if sentence.words is None:
                whole = self._sentence_end(position)
                if whole is None or whole > played_ms:
                    everything = False
                    break
                parts.append(sentence.text)
                continue
            spoken = [w for w in sentence.words if w.end_ms <= played_ms]
            if spoken:
                parts.append(cut_after_words(sentence.text, [w.text for w in spoken]))
            if len(spoken) < len(sentence.words):
                everything = False
                break
        return Heard(" ".join(p for p in parts if p), everything)

    def _sentence_end(self, position: int) -> float | None:
        """Without word timestamps a sentence counts whole once its audio is known to have
        ended: where the next one starts, or the answer's total for the last one."""
        if position + 1 < len(self.sentences):
            return self.sentences[position + 1].offset_ms
        return self.audio_ms if self.complete else None


def cut_after_words(sentence: str, words: list[str]) -> str:
    """`sentence` up to the end of the last of its first `len(words)` words, as written.

    The TTS's word texts, joined, give back the sentence without whitespace, so each is
    found in order; CJK words (one character each) keep the sentence's own spacing.
    """
    position = 0
    for word in words:
        found = sentence.find(word, position)
        if found < 0:  # not the sentence's own words: keep them as the TTS gave them
            return " ".join(words)
        position = found + len(word)
    return sentence[:position]

"""Per-token durations from the model -> start and end of every written word.

Kokoro predicts one duration per token, in units of 600 samples (25 ms at 24 kHz), for the
two pad tokens around each call too, and its audio is exactly 600 samples per unit (checked by
the engine on every call). The speed is already in the durations (the model divides by it
before rounding). A word runs from the start of its first sounding token to the end of its
last one: the pause of a space or a comma after it belongs to no word. A word with no sounding
token (a lone dash) gets an empty span where it stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kokoro_server.engine.model_calls import ModelCall
from kokoro_server.spoken import SpokenWord

SAMPLES_PER_UNIT = 600
MS_PER_UNIT = 25  # 600 samples at 24 kHz


@dataclass(frozen=True)
class WordTiming:
    text: str
    start_ms: int
    end_ms: int

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text, "start_ms": self.start_ms, "end_ms": self.end_ms}


def word_timings(
    words: Sequence[SpokenWord], calls: Sequence[ModelCall], durations: Sequence[np.ndarray]
) -> tuple[WordTiming, ...]:
    """Times relative to the first sample of the sentence's audio (all calls concatenated)."""
    if len(calls) != len(durations):
        raise ValueError(f"{len(calls)} model calls but {len(durations)} duration arrays")
    spans: list[list[int] | None] = [None] * len(words)  # [start, end] in units
    anchors: list[int | None] = [None] * len(words)  # where a word's first token starts
    cursor = 0
    for call, units in zip(calls, durations, strict=True):
        counts = [int(u) for u in units]
        if len(counts) != len(call.tokens) + 2:
            raise ValueError(f"{len(counts)} durations for {len(call.tokens)} tokens + 2 pads")
        cursor += counts[0]
        for token, length in zip(call.tokens, counts[1:-1], strict=True):
            if anchors[token.word] is None:
                anchors[token.word] = cursor
            if token.sounding:
                span = spans[token.word]
                if span is None:
                    spans[token.word] = [cursor, cursor + length]
                else:
                    span[1] = cursor + length
            cursor += length
        cursor += counts[-1]
    timings: list[WordTiming] = []
    previous_end = 0
    for word, span, anchor in zip(words, spans, anchors, strict=True):
        if span is None:  # silent or unspoken: an empty span where it stands
            span = [max(anchor or 0, previous_end)] * 2
        start, end = span
        timings.append(WordTiming(word.text, start * MS_PER_UNIT, end * MS_PER_UNIT))
        previous_end = end
    return tuple(timings)

"""What a client saw in one session, checked against the protocol's ordering rules.

`parse` walks the frames once and records every violation in `problems` instead of raising,
so a failing test shows all of them: audio outside a sentence (e.g. after `cancelled`),
index gaps, `synthesis_complete` byte counts that do not match the audio received.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

Frame = dict[str, Any] | bytes


@dataclass
class Sentence:
    index: int
    text: str
    audio: bytearray = field(default_factory=bytearray)
    complete: bool = False

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.audio).hexdigest()


@dataclass
class Epoch:
    """Everything between two `cancelled` messages (or session start / end)."""

    sentences: list[Sentence] = field(default_factory=list)
    flushed: int = 0


@dataclass
class Transcript:
    epochs: list[Epoch] = field(default_factory=lambda: [Epoch()])
    errors: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    end: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def sentences(self) -> list[Sentence]:
        return [s for epoch in self.epochs for s in epoch.sentences]

    @property
    def error_codes(self) -> list[str]:
        return [e.get("code", "?") for e in self.errors]


def squash(text: str) -> str:
    """Text with all whitespace removed: segmentation may move whitespace, never other chars."""
    return "".join(text.split())


def parse(frames: list[Frame]) -> Transcript:
    out = Transcript()
    current: Sentence | None = None
    last_index = -1
    for n, frame in enumerate(frames):
        if out.end is not None:
            out.problems.append(f"frame {n}: {type(frame).__name__} after session_end")
        if isinstance(frame, bytes):
            if current is None:
                out.problems.append(f"frame {n}: {len(frame)} audio bytes outside a sentence")
            else:
                current.audio.extend(frame)
            continue
        kind = frame.get("type")
        if kind == "sentence_start":
            if current is not None:
                out.problems.append(f"frame {n}: sentence {current.index} never completed")
            if frame["index"] != last_index + 1:
                out.problems.append(f"frame {n}: index {frame['index']} after {last_index}")
            last_index = frame["index"]
            current = Sentence(frame["index"], frame["text"])
            out.epochs[-1].sentences.append(current)
        elif kind == "synthesis_complete":
            if current is None or frame["index"] != current.index:
                out.problems.append(f"frame {n}: synthesis_complete {frame['index']} unexpected")
            elif frame["audio_bytes"] != len(current.audio):
                out.problems.append(
                    f"frame {n}: sentence {current.index} declared {frame['audio_bytes']} "
                    f"bytes, received {len(current.audio)}"
                )
            else:
                current.complete = True
            current = None
        elif kind == "cancelled":
            current = None  # a sentence cut by the cancel stays incomplete
            out.cancelled.append(frame["dropped"])
            out.epochs.append(Epoch())
        elif kind == "flushed":
            if current is not None:
                out.problems.append(f"frame {n}: flushed inside sentence {current.index}")
            out.epochs[-1].flushed += 1
        elif kind == "error":
            out.errors.append(frame)
        elif kind == "session_end":
            out.end = frame
        else:
            out.problems.append(f"frame {n}: unknown message {frame!r}")
    return out

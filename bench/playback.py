"""The listener model of the concurrency benchmark: each caller plays its audio in real time.

A caller starts playing at the first audio byte of its first sentence and plays sentences back
to back. When the next sentence's first byte arrives after the audio before it has finished
playing, the listener hears silence: a **stall**, lasting until that byte arrives; playback
then goes on from there. (The server sends each sentence's frames back to back once it is
synthesized, so the first byte stands for the whole sentence.) Pure functions on the times a
client recorded; no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise
from typing import Any

from devkit.stats import median, summarize


@dataclass(frozen=True)
class Played:
    """One admitted caller, times in seconds from its first text message."""

    ttfa_s: float
    stalls: int
    stall_s: float  # silence heard in total, between its first and last sentence
    audio_s: float


def play(first_byte_s: Sequence[float], durations_s: Sequence[float]) -> Played:
    """Replay one caller's sentences: first-byte arrival times and audio durations, in order."""
    if not first_byte_s or len(first_byte_s) != len(durations_s):
        raise ValueError("need one first-byte time per sentence, at least one sentence")
    if any(b < a for a, b in pairwise(first_byte_s)):
        raise ValueError("sentences must arrive in order")
    stalls, stall_s = 0, 0.0
    ends = first_byte_s[0]
    for arrival, duration in zip(first_byte_s, durations_s, strict=True):
        if arrival > ends:
            stalls += 1
            stall_s += arrival - ends
            ends = arrival
        ends += duration
    return Played(first_byte_s[0], stalls, stall_s, sum(durations_s))


def caller_record(
    played: Played | None, offset_s: float, first_sound_s: float | None = None
) -> dict[str, Any]:
    """What one caller contributes to a run's sample (None: refused with `busy`);
    first_sound_s: when it first heard sound (bench/audible.py), if measured."""
    if played is None:
        return {"refused": True, "offset_s": offset_s}
    return {
        "refused": False,
        "offset_s": offset_s,
        "first_sound_s": first_sound_s,
        **asdict(played),
    }


def summarize_level(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The row of one (start pattern, sessions, configuration) over all its runs."""
    callers = [c for run in runs for c in run["callers"]]
    admitted = [c for c in callers if not c["refused"]]
    stall_s = [c["stall_s"] for c in admitted]
    return {
        "sessions": runs[0]["sessions"],
        "config": runs[0]["config"],
        "runs": len(runs),
        "callers": len(callers),
        "refused": len(callers) - len(admitted),
        "ttfa": summarize([c["ttfa_s"] for c in admitted]) if admitted else None,
        "first_sound": (
            summarize([c["first_sound_s"] for c in admitted])
            if admitted and all(c.get("first_sound_s") is not None for c in admitted)
            else None
        ),
        "stalled_callers": sum(1 for c in admitted if c["stalls"]),
        "stalls": sum(c["stalls"] for c in admitted),
        "stall_s_mean": sum(stall_s) / len(stall_s) if stall_s else 0.0,
        "stall_s_max": max(stall_s, default=0.0),
        "throughput": median([run["audio_s"] / run["wall_s"] for run in runs]),
        "guard_decisions": sum(run.get("guard_decisions", 0) for run in runs),
        "samples": runs,
    }

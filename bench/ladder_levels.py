"""One level of the load ladder (N callers arriving staggered), its figures and its SLO verdict.

A level's figures, over its callers that were admitted and heard their whole answer:
- first sound p50/p95: first text sent -> first audible sample (bench/audible.py), with the
  first audio byte beside it;
- stalls (the listener's buffer ran dry, bench/ladder_session.py), the silence they add, and
  the stall ratio: that silence over the audio heard;
- refusals (`busy`, close 1013), failures, callers the level's time limit cut off;
- model time: each sentence's `synth_ms` from `synthesis_complete` (every caller's, also
  one cut off), and its sum over the audio those sentences made;
- the server's CPU over the level, where the ladder started the server (otherwise None);
- streams open at once (peak), counted from the callers' own open and end times.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kokoro_stream.base import TtsTransport

from bench.ladder_session import (
    FAILED,
    HOLD_ANSWER,
    OK,
    REFUSED,
    TIMED_OUT,
    Caller,
    run_caller,
)
from devkit.stats import summarize


@dataclass(frozen=True)
class Slo:
    first_sound_p95_s: float
    max_stall_ratio: float
    max_stalls_per_session: int | None  # None: the stall ratio alone
    max_refused: int

    def record(self) -> dict[str, Any]:
        return {
            "first_sound_p95_ms": self.first_sound_p95_s * 1000,
            "max_stall_ratio": self.max_stall_ratio,
            "max_stalls_per_session": self.max_stalls_per_session,
            "max_refused": self.max_refused,
        }


@dataclass(frozen=True)
class Callers:
    """How every caller of a level behaves."""

    deltas: Sequence[str]
    stagger_s: float
    tokens_per_s: float
    voice: str | None
    sample_rate: int
    hold: str  # HOLD_CALL or HOLD_ANSWER (bench/ladder_session.py)


async def run_level(
    transport: TtsTransport,
    sessions: int,
    callers: Callers,
    timeout_s: float,
    cpu_s: Callable[[], float | None],
) -> dict[str, Any]:
    """`sessions` callers, caller i arriving at i x stagger; all done or cut off by timeout_s."""
    cpu_before = cpu_s()
    t0 = time.perf_counter()
    done = await asyncio.gather(
        *(
            run_caller(
                transport,
                callers.deltas,
                caller=i,
                offset_s=i * callers.stagger_s,
                level_t0=t0,
                deadline=t0 + timeout_s,
                tokens_per_s=callers.tokens_per_s,
                voice=callers.voice,
                sample_rate=callers.sample_rate,
                hold=callers.hold,
            )
            for i in range(sessions)
        )
    )
    wall = time.perf_counter() - t0
    cpu_after = cpu_s()
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return summarize_level(sessions, list(done), wall, cpu)


def peak_open(callers: Sequence[Caller]) -> int:
    """Most streams held open at the same moment (an end before a start at the same instant);
    a refused session is not one, however briefly its connection was open."""
    edges = sorted(
        (t, step)
        for c in callers
        if c.opened_at_s is not None and c.ended_at_s is not None and c.outcome != REFUSED
        for t, step in ((c.opened_at_s, 1), (c.ended_at_s, -1))
    )
    peak = now = 0
    for _, step in edges:
        now += step
        peak = max(peak, now)
    return peak


def _summary(values: list[float]) -> dict[str, float] | None:
    return summarize(values) if values else None


def summarize_level(
    sessions: int, callers: list[Caller], wall_s: float, cpu_s: float | None
) -> dict[str, Any]:
    heard = [c for c in callers if c.outcome == OK]
    audio_s = sum(c.audio_s for c in heard)
    stall_s = sum(c.stall_s for c in heard)
    # The model's work for every caller, also one cut off before its answer's end.
    synth_ms = [ms for c in callers for ms in c.synth_ms]
    model_s = sum(synth_ms) / 1000
    made_s = sum(c.audio_s for c in callers)
    sounds = [c.first_sound_s for c in heard if c.first_sound_s is not None]
    return {
        "sessions": sessions,
        "wall_s": wall_s,
        "ok": len(heard),
        "refused": sum(c.outcome == REFUSED for c in callers),
        "failed": sum(c.outcome == FAILED for c in callers),
        "timed_out": sum(c.outcome == TIMED_OUT for c in callers),
        "first_sound": _summary(sounds),
        "first_sound_missing": len(heard) - len(sounds),  # all silent: never heard a sound
        "first_byte": _summary([c.first_byte_s for c in heard if c.first_byte_s is not None]),
        "stalls": sum(c.stalls for c in heard),
        "stalled_sessions": sum(1 for c in heard if c.stalls),
        "max_stalls_per_session": max((c.stalls for c in heard), default=0),
        "stall_s": stall_s,
        "audio_s": audio_s,
        "stall_ratio": stall_s / audio_s if audio_s else 0.0,
        "audio_bytes": sum(c.audio_bytes for c in callers),
        "announced_bytes": sum(c.announced_bytes for c in callers),
        "model": {
            "sentences": len(synth_ms),
            "synth_ms": _summary(synth_ms),
            "model_s": model_s,
            "model_s_per_audio_s": model_s / made_s if made_s else None,
        },
        "server_cpu": None
        if cpu_s is None
        else {"cpu_s": cpu_s, "cores": cpu_s / wall_s if wall_s else 0.0},
        "peak_open_sessions": peak_open(callers),
        "errors": sorted({c.error for c in callers if c.error}),
        "callers": [c.record() for c in callers],
    }


def verdict(level: dict[str, Any], slo: Slo) -> list[str]:
    """Why the level breaks the SLO (empty: it holds)."""
    broken = []
    for key in ("failed", "timed_out"):
        if level[key]:
            broken.append(f"{level[key]} session(s) {key.replace('_', ' ')}")
    if level["refused"] > slo.max_refused:
        broken.append(f"{level['refused']} session(s) refused (at most {slo.max_refused})")
    sound = level["first_sound"]
    if level["ok"] and (sound is None or level["first_sound_missing"]):
        broken.append("a caller heard no sound at all")
    elif sound and sound["p95"] > slo.first_sound_p95_s:
        broken.append(
            f"first sound p95 {sound['p95'] * 1000:.0f} ms > {slo.first_sound_p95_s * 1000:g} ms"
        )
    if level["stall_ratio"] > slo.max_stall_ratio:
        broken.append(f"stall ratio {level['stall_ratio']:.3f} > {slo.max_stall_ratio:g}")
    most = slo.max_stalls_per_session
    if most is not None and level["max_stalls_per_session"] > most:
        broken.append(f"a session stalled {level['max_stalls_per_session']} times (at most {most})")
    return broken


def recommend(levels: Sequence[dict[str, Any]], headroom: float, hold: str) -> dict[str, Any]:
    """The autoscaling target: floor(headroom x the highest level that held the SLO), the
    levels having run in ascending order up to the first that broke it."""
    passing = [lv for lv in levels if not lv["broken"]]
    highest = passing[-1]["sessions"] if passing else 0
    target = math.floor(headroom * highest + 1e-9)  # 0.75 x 4 is 3, not 2.999...
    notes = []
    if target < 1:
        notes.append(
            "no caller count meets the SLO with this headroom: target_concurrency_per_instance "
            "must be at least 1, so relax the SLO or give the server more capacity"
        )
    elif len(passing) == len(levels):
        notes.append(
            "no level broke the SLO: the server holds more than the highest level run "
            "(raise --max-sessions to find where it breaks)"
        )
    if passing and hold == HOLD_ANSWER:
        streams = passing[-1]["peak_open_sessions"]
        notes.append(
            f"with --hold answer a stream closes before its caller has heard the answer, and "
            f"the autoscaling metric counts streams: at level {highest} at most {streams} were "
            f"open at once, floor({headroom:g} x {streams}) = "
            f"{math.floor(headroom * streams + 1e-9)} in the metric's units"
        )
    elif passing and passing[-1]["peak_open_sessions"] < highest:
        notes.append(
            f"at level {highest} at most {passing[-1]['peak_open_sessions']} streams were open "
            "at once (the first callers had finished before the last arrived): lower "
            "--stagger-s or use a longer answer so that a level of N callers holds N streams"
        )
    return {
        "highest_passing_level": highest,
        "headroom": headroom,
        "target_concurrency_per_instance": target,
        "rule": f"floor({headroom:g} x {highest}) = {target}",
        "cdk_context": f"-c target_concurrency_per_instance={target}" if target >= 1 else None,
        "note": " ".join(notes),
    }

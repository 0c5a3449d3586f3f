"""The concurrency benchmark's listener model and its tables, on SYNTHETIC arrival times
(made-up numbers, no server): stalls, stall time, refusals, and the FIFO vs deadline rows."""

from __future__ import annotations

import pytest

from bench.common import BenchError
from bench.concurrency import analyse, offsets, parse_choices
from bench.playback import caller_record, play, summarize_level
from bench.tables import concurrency_tables, format_markdown


def test_audio_that_arrives_in_time_never_stalls() -> None:
    # Sentence 1 arrives while sentence 0 (1.0..4.0 s) still plays.
    played = play([1.0, 2.5, 6.0], [3.0, 2.0, 1.0])
    assert (played.ttfa_s, played.stalls, played.stall_s, played.audio_s) == (1.0, 0, 0.0, 6.0)


def test_a_late_sentence_is_a_stall_and_playback_goes_on_from_its_arrival() -> None:
    # 0 plays 1..2; 1 arrives at 3 (stall 1 s), plays 3..5; 2 arrives at 5.5 (stall 0.5 s).
    played = play([1.0, 3.0, 5.5], [1.0, 2.0, 1.0])
    assert played.stalls == 2
    assert played.stall_s == pytest.approx(1.5)


def test_arrival_exactly_at_the_end_is_not_a_stall() -> None:
    assert play([0.5, 1.5], [1.0, 1.0]).stalls == 0


@pytest.mark.parametrize(
    ("arrivals", "durations"), [([], []), ([1.0], [1.0, 2.0]), ([2.0, 1.0], [1.0, 1.0])]
)
def test_malformed_recordings_are_refused(arrivals, durations) -> None:
    with pytest.raises(ValueError, match="sentence"):
        play(arrivals, durations)


def test_staggered_callers_keep_about_n_answers_playing() -> None:
    assert offsets(4, "staggered", 16.0) == [0.0, 4.0, 8.0, 12.0]
    assert offsets(3, "simultaneous", 16.0) == [0.0, 0.0, 0.0]


def test_choices_keep_their_canonical_order_and_refuse_unknown_names() -> None:
    allowed = ("fifo", "deadline", "deadline+admission")
    assert parse_choices("deadline, fifo", allowed, "--configs") == ["fifo", "deadline"]
    for raw in ("", "lifo", "fifo,edf"):
        with pytest.raises(BenchError, match="--configs"):
            parse_choices(raw, allowed, "--configs")


def sample(config: str, n: int, callers: list[dict], wall_s: float = 10.0) -> dict:
    admitted = [c for c in callers if not c["refused"]]
    return {
        "engine": "real model",
        "start": "staggered",
        "sessions": n,
        "config": config,
        "callers": callers,
        "wall_s": wall_s,
        "audio_s": sum(c["audio_s"] for c in admitted),
    }


def test_level_rows_count_refusals_stalls_and_compare_with_the_solo_caller() -> None:
    solo = sample("deadline", 1, [caller_record(play([1.0, 2.0], [2.0, 2.0]), 0.0)])
    crowd = sample(
        "deadline",
        3,
        [
            caller_record(play([1.0, 2.0], [2.0, 2.0]), 0.0),
            caller_record(play([2.0, 5.0], [2.0, 2.0]), 1.0),  # 1 s of silence
            caller_record(None, 2.0),  # refused with busy
        ],
    )
    row = summarize_level([crowd])
    assert (row["callers"], row["refused"], row["stalled_callers"], row["stalls"]) == (3, 1, 1, 1)
    assert row["stall_s_mean"] == pytest.approx(0.5)
    assert row["stall_s_max"] == pytest.approx(1.0)
    assert row["throughput"] == pytest.approx(0.8)  # 8 audio s in 10 wall s
    groups = analyse({"solo": [solo], "crowd": [crowd]})
    (table,) = concurrency_tables({"groups": groups})
    text = format_markdown(table)
    assert "Real model, staggered starts" in text
    # Without a first sound (older results) p95 / solo is on the first byte: p95 of {1, 2}
    # is 1.95 s; the solo caller's is 1 s.
    assert "| 3 | deadline | 2/3 | - | - | 1500 | 1.95 | 1/2 | 1 | 0.50 | 1.00 | 0.80 |" in text


def test_level_rows_lead_with_the_first_sound_when_it_was_measured() -> None:
    solo = sample("deadline", 1, [caller_record(play([1.0, 2.0], [2.0, 2.0]), 0.0, 1.02)])
    crowd = sample(
        "deadline",
        2,
        [
            caller_record(play([1.0, 2.0], [2.0, 2.0]), 0.0, 1.01),
            caller_record(play([2.0, 5.0], [2.0, 2.0]), 1.0, 2.03),
        ],
    )
    (table,) = concurrency_tables({"groups": analyse({"solo": [solo], "crowd": [crowd]})})
    # first sound p50 / p95, then the first byte's p50, and p95 / solo on the first sound.
    assert "| 2 | deadline | 2/2 | 1520 | 1979 | 1500 | 1.94 |" in format_markdown(table)

"""bench.cpu_cost: its flags, the no-model double's audio, and one real session end to end."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from bench.cpu_cost import main, parse_formats, table
from bench.cpu_cost_engine import LEAD_UNITS, VOICE, no_model_audio, planned_units
from bench.tables import format_text
from kokoro_server.config import Settings
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.model_files import locate
from kokoro_server.engine.pacing import Pacing, pace
from kokoro_server.engine.word_times import SAMPLES_PER_UNIT
from kokoro_server.serving.synthesis import build_frontend


def test_formats_are_read_with_their_frames() -> None:
    specs = parse_formats("pcm, ulaw@20,opus")
    assert [(s.label, s.fmt, s.frame_ms) for s in specs] == [
        ("pcm", "pcm", 0),
        ("ulaw@20", "ulaw", 20),
        ("opus", "opus", 0),
    ]
    assert specs[1].start_message()["frame_ms"] == 20
    assert "frame_ms" not in specs[0].start_message()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("flac", "unknown format 'flac'"),
        ("mp3@20", "only ulaw/alaw take @FRAME_MS"),
        ("ulaw@25", "frame_ms must be one of"),
        ("pcm,pcm", "named twice"),
    ],
)
def test_a_bad_format_list_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        parse_formats(text)


def test_bad_numbers_are_refused_before_any_server_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--runs", "0"])
    assert "--runs and --concurrency must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--deflate", "maybe"])
    assert "--deflate takes on, off or on,off" in capsys.readouterr().err


def test_the_doubles_audio_is_as_long_as_its_durations_and_pacing_trims_it() -> None:
    vocab = locate("").vocab
    words = build_frontend(Settings(), vocab)("Thanks for calling back today.", VOICE).words
    call = plan_calls(words, vocab)[0]
    units = planned_units(call, 1.0)
    audio = no_model_audio(call, units)
    assert units.size == len(call.tokens) + 2  # one duration per token and per pad
    assert audio.size == SAMPLES_PER_UNIT * int(units.sum())
    lead = SAMPLES_PER_UNIT * round(LEAD_UNITS)
    assert not audio[:lead].any() and np.abs(audio[lead:]).max() > 0.1
    faster = planned_units(call, 2.0)
    assert int(faster.sum()) < int(units.sum())  # speed shortens the audio, as the model's
    paced = pace(audio, None, Pacing(), "sentence")
    assert paced.lead_cut_ms > 0  # the model's leading silence, cut as it would be


@pytest.mark.slow  # starts the server as its own process
def test_one_session_end_to_end_gives_consistent_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "Hello there. How are you today?"
    argv = ["--runs", "1", "--formats", "pcm", "--deflate", "off", "--text", text]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "cpu_cost.json").read_text())
    [sample] = result["modes"]["pcm, deflate off"]
    assert sample["sentences"] == 2 and sample["audio_s"] > 0
    assert sample["audio_bytes"] == pytest.approx(sample["audio_s"] * 48_000, rel=0.01)
    parts = ("front_end_s", "no_model_audio_s", "loop_s")
    assert all(sample[part] > 0 for part in parts)
    assert sample["process_s"] >= sum(sample[part] for part in parts)
    assert sample["cost_s"] == pytest.approx(sample["process_s"] - sample["no_model_audio_s"])
    # /proc counts the same CPU in clock ticks (10 ms): the two readings agree to a few ticks.
    assert abs(sample["proc_s"] - sample["process_s"]) < 0.05
    shown = format_text(table(result))
    assert f"{result['machine']['usable_cores']}-core CPU machine" in shown
    assert "pcm, deflate off" in shown
    assert shown.splitlines()[0] in capsys.readouterr().out

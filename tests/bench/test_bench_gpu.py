"""bench.gpu: the capacity rule, and a CPU dry run of the whole command on the real server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.gpu import GpuBenchError, Level, _levels, main, sessions_held


def test_sessions_held_is_the_last_level_within_budget_before_the_first_miss() -> None:
    levels = [
        Level(1, [100.0, 120.0]),
        Level(2, [150.0, 280.0]),
        Level(4, [250.0, 900.0]),  # p95 over 300 ms
        Level(8, [100.0, 110.0]),  # after a miss: noise, not capacity
    ]
    assert sessions_held(levels, 300.0) == 2
    assert sessions_held(levels, 1000.0) == 8
    assert sessions_held(levels, 50.0) == 0
    refused = [Level(1, [100.0]), Level(2, [100.0], failures=1)]
    assert sessions_held(refused, 300.0) == 1  # a refused (`busy`) session is a miss


def test_levels_are_checked() -> None:
    assert _levels("4,1,2,2") == (1, 2, 4)
    for bad in ("", "0,1", "a,b"):
        with pytest.raises(GpuBenchError, match="--levels"):
            _levels(bad)


def test_an_empty_sentence_is_refused_before_any_server_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--sentence", "  "]) == 2
    assert "--sentence must hold some text" in capsys.readouterr().err


def test_cuda_without_a_gpu_is_an_error_not_a_cpu_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--server-env", "PROVIDER=cuda"]) == 2
    assert "KOKORO_NAME=value" in capsys.readouterr().err


@pytest.mark.model
def test_cpu_dry_run_prints_the_three_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gpu.json"
    # The whole command (server process, runs, two levels) on a short sentence without warm-up.
    argv = ["--provider", "auto", "--runs", "2", "--warmup", "0", "--levels", "1,2"]
    argv += ["--rounds", "1", "--budget-ms", "600000", "--output", str(out)]
    argv += ["--sentence", "Hello there."]
    argv += ["--server-env", "KOKORO_MAX_LOAD=0"]  # admission by session count: 2 fit
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "provider in use: CPUExecutionProvider" in printed
    assert "TTFA one sentence (ms)" in printed and "real-time factor (synthesis)" in printed
    assert "concurrent sessions held at p95 TTFA <= 600000 ms: 2" in printed
    data = json.loads(out.read_text())
    assert data["provider"] == "CPUExecutionProvider"
    assert data["sentence"] == "Hello there."
    assert len(data["ttfa_ms"]) == 2 and all(t > 0 for t in data["ttfa_ms"])
    assert data["rtf"] and all(0 < r < 20 for r in data["rtf"])
    assert [lv["sessions"] for lv in data["levels"]] == [1, 2]
    assert len(data["levels"][1]["ttfa_ms"]) == 2

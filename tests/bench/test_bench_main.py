"""`python -m bench`: a quick run checks that every benchmark runs and leaves the committed
results and the docs' tables alone; a full run writes both."""

from __future__ import annotations

from pathlib import Path

import pytest

import bench.__main__ as runner
from bench import report as bench_report
from bench.common import RESULTS_DIR


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[list[str] | None]]:
    seen: dict[str, list[list[str] | None]] = {"tts_ttfa": [], "report": []}

    def script(argv: list[str] | None) -> int:
        seen["tts_ttfa"].append(argv)
        return 0

    def report(argv: list[str] | None) -> int:
        seen["report"].append(argv)
        return 0

    monkeypatch.setitem(runner.SCRIPTS, "tts_ttfa", script)
    monkeypatch.setattr(bench_report, "main", report)
    return seen


def results_dir_of(argv: list[str] | None) -> Path:
    assert argv is not None
    return Path(argv[argv.index("--results-dir") + 1])


def test_a_quick_run_writes_under_out_and_rewrites_no_doc(calls: dict) -> None:
    assert runner.main(["--quick", "--only", "tts_ttfa"]) == 0
    [argv] = calls["tts_ttfa"]
    assert "--quick" in argv
    assert results_dir_of(argv) == runner.QUICK_RESULTS_DIR
    assert runner.QUICK_RESULTS_DIR.parent.name == "out"  # git-ignored
    assert calls["report"] == []


def test_a_full_run_writes_the_committed_results_and_their_tables(calls: dict) -> None:
    assert runner.main(["--only", "tts_ttfa"]) == 0
    [argv] = calls["tts_ttfa"]
    assert results_dir_of(argv) == RESULTS_DIR
    assert calls["report"] == [[]]


def test_a_run_into_another_folder_leaves_the_docs_alone(calls: dict, tmp_path: Path) -> None:
    assert runner.main(["--only", "tts_ttfa", "--results-dir", str(tmp_path)]) == 0
    assert results_dir_of(calls["tts_ttfa"][0]) == tmp_path
    assert calls["report"] == []

"""devkit/loop_timings.py: modes parsed strictly, pytest's summary read, runs interleaved."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from devkit import loop_timings

# A stand-in project: its `make test-fast` prints a pytest-like summary that depends on the
# make variable the mode sets, and fails when asked to.
MAKEFILE = """\
WHO ?= nobody
test-fast:
\t@echo "$(WHO)" >> order.txt
\t@echo "========= 3 passed, $(FAILED) failed, 1 deselected in 1.25s ========="
\t@test "$(FAILED)" = 0
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    return tmp_path


def test_modes_name_their_make_variables_and_checkout(project: Path) -> None:
    mode = loop_timings.parse_mode(f"four@{project}=FAST_WORKERS=4 ARGS='-k x'")
    assert mode == loop_timings.Mode("four", project, ("FAST_WORKERS=4", "ARGS=-k x"))
    assert loop_timings.parse_mode("plain=").assignments == ()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("no-equals-sign", "expected LABEL"),
        ("=FAST_WORKERS=4", "expected LABEL"),
        ("x=not-an-assignment", "not a VAR=VALUE"),
        ("x@/nonexistent/dir=", "no Makefile"),
    ],
)
def test_a_bad_mode_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        loop_timings.parse_mode(text)


def test_pytest_summary_is_read_from_the_last_summary_line() -> None:
    output = (
        "==== 1 passed in 0.10s ====\n...\n"
        "========== 2 failed, 1219 passed, 1 error, 11 warnings in 61.93s (0:01:01) ==========\n"
    )
    assert loop_timings.read_summary(output) == (
        61.93,
        {"failed": 2, "passed": 1219, "error": 1},
    )
    assert loop_timings.read_summary("make: *** [test-fast] Error 2\n") == (None, {})


def test_runs_interleave_the_modes_and_the_table_counts_failures(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = loop_timings.main(
        [
            "--runs", "2",
            "--mode", f"good@{project}=WHO=good FAILED=0",
            "--mode", f"bad@{project}=WHO=bad FAILED=2",
            "--logs", str(tmp_path / "logs"),
        ]
    )  # fmt: skip
    assert code == 1  # a mode's make failed
    assert (project / "order.txt").read_text().split() == ["good", "bad", "good", "bad"]
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    # mode, runs, 4 wall columns, pytest median, passed, not passed, load
    assert rows["good"][1] == "2" and rows["good"][6:9] == ["1.2", "3", "0"]
    assert rows["bad"][6:9] == ["1.2", "3", "4"]
    assert len(list((tmp_path / "logs").glob("test-fast-*.log"))) == 4

"""How long the edit loop (or the whole suite) takes: `make` runs in turns, in one table.

    python -m devkit.loop_timings --runs 3                                   # make test-fast
    python -m devkit.loop_timings --runs 3 --mode three=FAST_WORKERS=3 --mode four=FAST_WORKERS=4
    python -m devkit.loop_timings --runs 2 --mode before@/tmp/old-checkout= --mode after=
    python -m devkit.loop_timings --target test --runs 1                     # what CI runs

A mode is `LABEL[@DIRECTORY]=[VAR=VALUE ...]`: make variables for that mode, and the checkout
to run in (default: this one). Another checkout, e.g. `git worktree add /tmp/before REV`, may
link this checkout's `.venv` and `node_modules`: its `make` is told the environment is
installed (`-o .venv/.installed`), or its newer requirement files would reinstall its
packages into the shared `.venv`. Modes run interleaved (A B A B ...), so a machine that
slows down during the run weighs on all of them alike, and the 1-minute load average before
each run is recorded. A run's time is the whole `make` command; pytest's own time and counts
come from its summary line. The table is marked busy when the load before the first run was
above half the cores (later runs start with the previous run's own load in the 1-minute
average).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from devkit.paths import OUT_DIR, REPO_ROOT
from devkit.stats import summarize

SUMMARY = re.compile(r"^=+ (?P<counts>.*?) in (?P<seconds>[\d.]+)s\b.*=+$", re.MULTILINE)
COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


@dataclass(frozen=True)
class Mode:
    label: str
    directory: Path
    assignments: tuple[str, ...]


@dataclass
class Run:
    mode: str
    wall_s: float
    load_1m: float
    exit_code: int
    pytest_s: float | None = None
    counts: dict[str, int] = field(default_factory=dict)


def parse_mode(text: str) -> Mode:
    """`LABEL[@DIRECTORY]=[VAR=VALUE ...]` -> Mode; a clear error for anything else."""
    head, sep, rest = text.partition("=")
    label, _, directory = head.partition("@")
    if not sep or not label.strip():
        raise argparse.ArgumentTypeError(
            f"mode {text!r}: expected LABEL[@DIRECTORY]=[VAR=VALUE ...], e.g. four=FAST_WORKERS=4"
        )
    assignments = tuple(shlex.split(rest))
    bad = [a for a in assignments if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", a)]
    if bad:
        raise argparse.ArgumentTypeError(f"mode {label!r}: not a VAR=VALUE assignment: {bad}")
    where = Path(directory).expanduser().resolve() if directory else REPO_ROOT
    if not (where / "Makefile").is_file():
        raise argparse.ArgumentTypeError(f"mode {label!r}: no Makefile in {where}")
    return Mode(label.strip(), where, assignments)


def read_summary(output: str) -> tuple[float | None, dict[str, int]]:
    """pytest's last summary line -> (its seconds, counts by outcome); (None, {}) if none."""
    found = list(SUMMARY.finditer(output))
    if not found:
        return None, {}
    last = found[-1]
    counts = {
        kind.rstrip("s") if kind == "errors" else kind: int(n)
        for n, kind in COUNT.findall(last["counts"])
    }
    return float(last["seconds"]), counts


def run_once(mode: Mode, target: str, log: Path) -> Run:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    # Another checkout shares this one's environment as it is (see the module's docstring).
    installed = [] if mode.directory == REPO_ROOT else ["-o", ".venv/.installed"]
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(  # noqa: S603 - make, with the variables the caller wrote
            ["make", "--no-print-directory", *installed, target, *mode.assignments],  # noqa: S607
            cwd=mode.directory,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    wall = time.perf_counter() - started
    seconds, counts = read_summary(log.read_text(encoding="utf-8", errors="replace"))
    return Run(mode.label, wall, load, done.returncode, seconds, counts)


def table(modes: list[Mode], runs: list[Run], target: str) -> str:
    """One row per mode, columns right-aligned under the title."""
    headers = [
        "mode",
        "runs",
        "wall median",
        "wall p95",
        "wall min",
        "wall max",
        "pytest median",
        "passed",
        "not passed",
        "load at start",
    ]
    rows = []
    for mode in modes:
        mine = [r for r in runs if r.mode == mode.label]
        wall = summarize([r.wall_s for r in mine])
        pytest_s = [r.pytest_s for r in mine if r.pytest_s is not None]
        passed = sorted({r.counts.get("passed", 0) for r in mine})
        failing = ("failed", "error")
        bad = sum(r.counts.get(k, 0) for r in mine for k in failing)
        # A run that failed with no failed or erroring test (mypy, lint-imports, a crash).
        bad += sum(1 for r in mine if r.exit_code and not any(r.counts.get(k) for k in failing))
        loads = [r.load_1m for r in mine]
        rows.append(
            [
                mode.label,
                str(len(mine)),
                *(f"{wall[k]:.1f}" for k in ("median", "p95", "min", "max")),
                f"{summarize(pytest_s)['median']:.1f}" if pytest_s else "-",
                "/".join(str(p) for p in passed),
                str(bad),
                f"{min(loads):.2f}-{max(loads):.2f}",
            ]
        )
    widths = [max(len(line[i]) for line in [headers, *rows]) for i in range(len(headers))]
    lines = [
        "  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True))
        for line in [headers, *rows]
    ]
    return "\n".join([f"make {target}, modes interleaved (seconds)", *lines])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m devkit.loop_timings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--target", default="test-fast", help="make target (default test-fast)")
    parser.add_argument("--runs", type=int, default=3, help="runs per mode (default 3)")
    parser.add_argument(
        "--mode",
        type=parse_mode,
        action="append",
        dest="modes",
        help="LABEL[@DIRECTORY]=[VAR=VALUE ...]; repeat to compare",
    )
    parser.add_argument(
        "--logs",
        type=Path,
        default=OUT_DIR / "loop_logs",
        help="where each run's make output goes",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.modes = args.modes or [parse_mode("this checkout=")]
    labels = [m.label for m in args.modes]
    if len(set(labels)) != len(labels):
        parser.error(f"mode labels must differ: {labels}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.logs.mkdir(parents=True, exist_ok=True)
    cores = len(os.sched_getaffinity(0))
    runs: list[Run] = []
    total = args.runs * len(args.modes)
    for i in range(args.runs):
        for mode in args.modes:
            slug = re.sub(r"\W+", "-", mode.label).strip("-") or "mode"
            log = args.logs / f"{args.target}-{slug}-{i + 1}.log"
            print(
                f"run {len(runs) + 1}/{total}: {mode.label} (make {args.target}"
                f"{' ' + ' '.join(mode.assignments) if mode.assignments else ''}"
                f" in {mode.directory}) ...",
                flush=True,
            )
            run = run_once(mode, args.target, log)
            runs.append(run)
            shown = ", ".join(f"{n} {k}" for k, n in run.counts.items()) or "no pytest summary"
            print(
                f"  {run.wall_s:.1f} s, exit {run.exit_code}, {shown}, load {run.load_1m:.2f};"
                f" log {log}",
                flush=True,
            )
    print()
    print(table(args.modes, runs, args.target))
    # After the first run the 1-minute average still holds the previous run's own load, so
    # only the load before the first run says whether something else was busy.
    busy = runs[0].load_1m > 0.5 * cores
    print(
        f"\n{cores} usable cores; load average (1 min) before the first run "
        f"{runs[0].load_1m:.2f}, before each run {min(r.load_1m for r in runs):.2f}-"
        f"{max(r.load_1m for r in runs):.2f}, now {os.getloadavg()[0]:.2f}"
        + ("  ** taken on a BUSY machine **" if busy else "")
    )
    return 0 if all(r.exit_code == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())

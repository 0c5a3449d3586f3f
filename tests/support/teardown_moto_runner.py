"""Runs ``python -m teardown`` inside moto's in-memory AWS, in a fresh process.

Usage (from the repository root): python -m tests.support.teardown_moto_runner APP_DIR
[options] [--then options ...]
Builds the leftover world of tests/support/teardown_world.py in APP_DIR's account state,
then runs teardown's real entry point (teardown/__main__.py) once per options group, all in
one moto session. Exits with the last run's exit code. Used by the subprocess test and to
produce the example output in docs/cleanup.md (labelled there as moto output).
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

# Credentials only moto accepts; never a real account.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_EC2_METADATA_DISABLED="true",
)
os.environ.pop("AWS_PROFILE", None)


def split_runs(args: list[str]) -> list[list[str]]:
    runs: list[list[str]] = [[]]
    for arg in args:
        if arg == "--then":
            runs.append([])
        else:
            runs[-1].append(arg)
    return runs


def run() -> int:
    from moto import mock_aws

    from tests.support import teardown_world

    app_dir = Path(sys.argv[1])
    runs = split_runs(sys.argv[2:])
    code = 0
    with mock_aws():
        teardown_world.build(app_dir)
        for i, argv in enumerate(runs):
            if len(runs) > 1:
                print(f"$ python -m teardown {' '.join(argv)}".rstrip(), flush=True)
            sys.argv = ["teardown", "--app-dir", str(app_dir), *argv]
            try:
                runpy.run_module("teardown", run_name="__main__", alter_sys=True)
            except SystemExit as exc:
                code = int(exc.code or 0)
            if len(runs) > 1:
                print(f"[exit code {code}]" + ("\n" if i < len(runs) - 1 else ""), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(run())

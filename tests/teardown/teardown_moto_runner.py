"""Produces the example output in docs/cleanup.md (labelled there as moto output).

Usage, from the repository root:
    .venv/bin/python -m tests.teardown.teardown_moto_runner APP_DIR [options] [--then options ...]

Starts a moto server on loopback, builds the leftover world of teardown_world.py in it (and
APP_DIR's cdk.json and cdk.out), then runs `python -m teardown --app-dir APP_DIR [options]` once
per options group, each as its own process configured like a user's shell: fake keys,
AWS_ENDPOINT_URL, and only AWS_REGION. Exits with the last run's exit code.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.teardown.moto_server import FAKE_KEYS, cli_env, moto_server, run_cli


def split_runs(args: list[str]) -> list[list[str]]:
    runs: list[list[str]] = [[]]
    for arg in args:
        if arg == "--then":
            runs.append([])
        else:
            runs[-1].append(arg)
    return runs


def main() -> int:
    # The world builder reads aws-cdk-lib, whose runtime warns about this Node version.
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    from tests.teardown import teardown_world

    app_dir = Path(sys.argv[1])
    code = 0
    with moto_server() as url, tempfile.TemporaryDirectory() as home:
        os.environ.update(FAKE_KEYS, AWS_ENDPOINT_URL=url)  # this process builds the world
        teardown_world.build(app_dir)
        env = cli_env(url, Path(home), AWS_REGION=teardown_world.REGION)
        for argv in split_runs(sys.argv[2:]):
            print(f"$ python -m teardown {' '.join(argv)}".rstrip())
            proc = run_cli(["--app-dir", str(app_dir), *argv], env)
            print(proc.stdout, end="")
            if proc.stderr:
                print(f"[stderr]\n{proc.stderr}", end="")
            code = proc.returncode
            print(f"[exit code {code}]\n", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

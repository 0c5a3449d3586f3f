"""`make test-frameworks`: each integration's tests with its framework at the newest and at
the lowest version its range allows, each in a fresh virtual environment that holds only
what a user installs (kokoro-stream, the integration, the framework with its AWS extras) and
the test runner. The real Kokoro server runs from this repository's environment on loopback;
the tests reach it through KOKORO_TEST_SERVER_WS. The example bots run there too, as files
of an installed package (no checkout on their path).

    python -m tests.support.framework_venvs [--only pipecat|livekit] [--bound newest|lowest]

Too slow for every `make test` (a fresh resolution and install per venv, then the
real-model tests): about 2-4 minutes per venv on this 2-core machine with a warm uv cache.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).parent / "uv"
VENVS = ROOT / ".venv-frameworks"
TEST_TOOLS = ("pytest==9.2.0", "pytest-asyncio==1.5.0", "pytest-timeout==2.4.0")


@dataclass(frozen=True)
class Framework:
    name: str
    distribution: str
    requirement: str  # the framework with its AWS extras, as its users install it
    integration: Path
    tests: tuple[str, ...]
    example: tuple[str, ...]  # argv of the example, run as a file; {url} and {out} filled in


FRAMEWORKS = {
    "pipecat": Framework(
        "pipecat",
        "pipecat-ai",
        "pipecat-ai[aws,sagemaker]",
        ROOT / "integrations" / "pipecat",
        (
            "tests/integrations/pipecat/test_pipecat_router.py",
            "tests/integrations/pipecat/test_pipecat_turns.py",
            "tests/integrations/pipecat/test_pipecat_words.py",
            "tests/integrations/pipecat/test_pipecat_sagemaker_contract.py",
            "tests/integrations/pipecat/test_pipecat_voice_blends.py",
            "tests/integrations/pipecat/test_pipecat_silent_server.py",
        ),
        ("examples/pipecat_bot.py", "--url", "{url}", "--out", "{out}"),
    ),
    "livekit": Framework(
        "livekit",
        "livekit-agents",
        "livekit-agents[aws]",
        ROOT / "integrations" / "livekit",
        (
            "tests/integrations/livekit/test_livekit_tts.py",
            "tests/integrations/livekit/test_livekit_voice_blends.py",
            "tests/integrations/livekit/test_livekit_sagemaker_contract.py",
            "tests/integrations/livekit/test_livekit_silent_server.py",
        ),
        ("examples/livekit_worker.py", "speak", "--url", "{url}", "--out", "{out}"),
    ),
}


def run(command: list[str], **kwargs: object) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def make_venv(framework: Framework, bound: str) -> Path:
    venv = VENVS / f"{framework.name}-{bound}"
    run([str(UV), "venv", "--quiet", "--clear", "--python", sys.executable, str(venv)])
    python = venv / "bin" / "python"
    resolution = ["--resolution", "lowest-direct"] if bound == "lowest" else []
    run(
        [
            str(UV),
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            *resolution,
            str(ROOT / "clients" / "kokoro_stream"),
            str(framework.integration),
            framework.requirement,
            *TEST_TOOLS,
        ],
        timeout=900,
    )
    return python


def check(framework: Framework, bound: str, ws: str) -> str:
    python = make_venv(framework, bound)
    version = subprocess.run(
        [
            str(python),
            "-c",
            f"import importlib.metadata as m; print(m.version({framework.distribution!r}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"==> {framework.name} {bound}: {framework.distribution} {version}", flush=True)
    # `python -m pytest` from the checkout's root: `tests.support` imports from the cwd.
    env = {**os.environ, "KOKORO_TEST_SERVER_WS": ws}
    conftest_dir = str(ROOT / "tests" / "integrations" / framework.name)
    run(
        [
            str(python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--confcutdir={conftest_dir}",
            *framework.tests,
        ],
        cwd=ROOT,
        env=env,
        timeout=900,
    )
    # The example, as a file of an installed package: no checkout on its path.
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out.wav")
        argv = [a.format(url=ws, out=out) for a in framework.example]
        argv[0] = str(ROOT / argv[0])
        run([str(python), *argv], cwd=tmp, timeout=300)
        assert Path(out).stat().st_size > 44, "the example wrote no audio"
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.framework_venvs")
    parser.add_argument("--only", choices=sorted(FRAMEWORKS), action="append")
    parser.add_argument("--bound", choices=("newest", "lowest"), action="append")
    args = parser.parse_args(argv)
    from devkit.local_stack import tts_server
    from tests.support.user_voice import write_user_voice

    results = []
    # Admission by session count only (as the in-process test server): on a busy CI machine
    # the measured real-time capacity would refuse the tests' back-to-back sessions. The
    # deployment's own voice file is beside the official voices (tests/support/user_voice.py).
    with tempfile.TemporaryDirectory(prefix="user_voices-") as voices:
        write_user_voice(Path(voices))
        env = {"KOKORO_MAX_LOAD": "0", "KOKORO_USER_VOICES_DIR": voices}
        with tts_server(env=env) as base_url:
            ws = base_url.replace("http://", "ws://") + "/invocations-bidirectional-stream"
            for name in args.only or sorted(FRAMEWORKS):
                for bound in args.bound or ("newest", "lowest"):
                    started = time.monotonic()
                    version = check(FRAMEWORKS[name], bound, ws)
                    results.append((name, bound, version, time.monotonic() - started))
    for name, bound, version, seconds in results:
        print(f"PASS {name:8} {bound:7} {version:10} {seconds:6.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

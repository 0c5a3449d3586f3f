"""Child processes: free loopback ports, servers started and stopped (wait until /ping
answers 200), and a tool run to its end as a user runs it (`python -m MODULE`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from devkit.paths import REPO_ROOT


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(
    base_url: str, timeout_s: float, proc: subprocess.Popen[bytes] | None = None
) -> float:
    """Poll /ping until 200; returns the seconds it took. Raises if the process dies first."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{base_url}/ping", timeout=1) as response:  # noqa: S310
                if response.status == 200:
                    return time.perf_counter() - started
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise TimeoutError(f"server at {base_url} not healthy after {timeout_s:.0f} s")


@contextmanager
def child_process(
    cmd: list[str], env: dict[str, str], log_path: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Run cmd with output to log_path (or nowhere); terminate it (then kill) on exit."""
    if log_path:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(log_path, "wb") if log_path else None  # noqa: SIM115
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and entrypoints
        cmd,
        env=env,
        cwd=REPO_ROOT,
        stdout=log_file or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log_file is not None:
            log_file.close()


def run_module(
    module: str, argv: list[str], env: dict[str, str], timeout_s: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGV` from the repository root with exactly `env`, to its end; its
    output captured as text, its exit status not raised on."""
    return subprocess.run(  # noqa: S603 - our own interpreter and modules
        [sys.executable, "-m", module, *argv],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )

"""Run the real Kokoro server (`container/serve`) as a child process on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVE = ROOT / "container" / "serve"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(
    base_url: str, timeout_s: float, proc: subprocess.Popen[bytes] | None = None
) -> float:
    """Poll /ping until 200; returns the seconds it took. Raises if the server dies first."""
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
    log_file = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and entrypoints
        cmd, env=env, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT
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
        if log_path:
            log_file.close()  # type: ignore[union-attr]


@contextmanager
def running_server(
    env: dict[str, str] | None = None, timeout_s: float = 300.0, log_path: Path | None = None
) -> Iterator[str]:
    """Start the server on 127.0.0.1 with the real model; yields its base URL; stops it."""
    port = free_port()
    child_env = {**os.environ, "KOKORO_HOST": "127.0.0.1", "KOKORO_PORT": str(port), **(env or {})}
    base_url = f"http://127.0.0.1:{port}"
    with child_process([sys.executable, str(SERVE)], child_env, log_path) as proc:
        wait_healthy(base_url, timeout_s, proc)
        yield base_url

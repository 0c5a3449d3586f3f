"""Local end-to-end demo: real Kokoro-82M TTS server + this agent + the caller, on loopback.

    python -m voice_agent.local_demo [--runs 3] [--tokens-per-s 40] [--ws]

Starts the container's server (`python -m kokoro_server.serve`, real model on CPU) and the
agent (`python -m voice_agent`, text from ReplayedAnswerSource: a given answer replayed at a
fixed token rate, not an LLM) as two processes on 127.0.0.1, runs stream vs batch and prints
the time to first audio. No AWS account is used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from .client import InvocationResult, compare_table, invoke_http, invoke_ws

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, timeout_s: float, name: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with code {proc.returncode} during start-up")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        time.sleep(0.2)
    raise TimeoutError(f"{name} not ready at {url} after {timeout_s:g} s")


@contextlib.contextmanager
def process(
    cmd: list[str], env: dict[str, str], name: str, log_path: Path
) -> Iterator[subprocess.Popen]:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and modules
            cmd, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
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


def _pythonpath(*extra: Path) -> str:
    parts = [str(p) for p in extra]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)


@contextlib.contextmanager
def local_stack(tokens_per_s: float, log_dir: Path, voice: str | None = None) -> Iterator[str]:
    """TTS server + agent on loopback; yields the agent's base URL."""
    tts_port, agent_port = free_port(), free_port()
    base_env = dict(os.environ, PYTHONPATH=_pythonpath(REPO / "container", REPO / "agent"))
    tts_env = dict(base_env, KOKORO_HOST="127.0.0.1", KOKORO_PORT=str(tts_port))
    if voice:
        tts_env["KOKORO_VOICE"] = voice
    agent_env = dict(
        base_env,
        HOST="127.0.0.1",
        PORT=str(agent_port),
        TTS_URL=f"ws://127.0.0.1:{tts_port}/invocations-bidirectional-stream",
        AGENT_TEXT_SOURCE="replay",
        AGENT_REPLAY_TOKENS_PER_S=str(tokens_per_s),
    )
    tts_cmd = [sys.executable, "-m", "kokoro_server.serve", "--host", "127.0.0.1"]
    tts_log, agent_log = log_dir / "local_demo_tts.log", log_dir / "local_demo_agent.log"
    with process([*tts_cmd, "--port", str(tts_port)], tts_env, "TTS server", tts_log) as tts:
        print(f"==> starting the Kokoro TTS server on 127.0.0.1:{tts_port} (log: {tts_log})")
        wait_ready(f"http://127.0.0.1:{tts_port}/ping", tts, 300, "TTS server")
        agent_cmd = [sys.executable, "-m", "voice_agent"]
        with process(agent_cmd, agent_env, "agent", agent_log) as agent:
            print(f"==> starting the voice agent on 127.0.0.1:{agent_port} (log: {agent_log})")
            wait_ready(f"http://127.0.0.1:{agent_port}/ping", agent, 60, "agent")
            yield f"http://127.0.0.1:{agent_port}"


async def run_compare(base: str, runs: int, use_ws: bool) -> dict[str, list[InvocationResult]]:
    results: dict[str, list[InvocationResult]] = {"stream": [], "batch": []}
    for run in range(runs):
        # Alternate which mode goes first so slow drifts of machine load hit both alike.
        for mode in ("stream", "batch") if run % 2 == 0 else ("batch", "stream"):
            payload = {"prompt": "Where is my order?", "mode": mode}
            if use_ws:
                result = await invoke_ws(base.replace("http://", "ws://") + "/ws", payload)
            else:
                result = await invoke_http(base, payload)
            if not result.ok:
                raise RuntimeError(f"{mode} run failed: {result.errors}")
            results[mode].append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m voice_agent.local_demo", description=__doc__)
    p.add_argument("--runs", type=int, default=3, help="runs per mode (after one warm-up)")
    p.add_argument("--tokens-per-s", type=float, default=40.0, help="replay token rate")
    p.add_argument("--ws", action="store_true", help="call the agent over /ws, not SSE")
    p.add_argument("--voice", help="TTS voice (default: the server's default voice)")
    p.add_argument("--out", default="out", help="folder for the WAV files")
    args = p.parse_args(argv)
    if args.runs < 1 or args.tokens_per_s <= 0:
        p.error("--runs must be >= 1 and --tokens-per-s > 0")
    out = Path(args.out)
    with local_stack(args.tokens_per_s, out, args.voice) as base:
        print("==> warm-up run (not counted)")
        asyncio.run(run_compare(base, 1, args.ws))
        print(f"==> {args.runs} runs per mode")
        results = asyncio.run(run_compare(base, args.runs, args.ws))
    for mode, runs in results.items():
        runs[-1].write_wav(out / f"agent_{mode}.wav")
    first = results["stream"][0]
    print()
    print(f"text source: {first.metrics.get('text_source')}")
    print(f"caller: {'WebSocket /ws' if args.ws else 'HTTP POST /invocations (SSE)'}")
    print("time from the request to the first audio byte at the caller, median of runs:")
    print(compare_table(results))
    print(f"audio saved to {out / 'agent_stream.wav'} and {out / 'agent_batch.wav'}")
    load = os.getloadavg()[0]
    print(f"(1-minute load average {load:.1f} on {os.cpu_count()} CPUs: CPU synthesis speed, and")
    print(" so both columns, depends on what else runs on this machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The local stack as child processes on 127.0.0.1: the real Kokoro server (the image's
`serve` entrypoint, real model on CPU) and the voice agent (`python -m voice_agent`) in
front of it, its text from the replayed answer (not an LLM). No AWS account is used."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from devkit.paths import SERVE
from devkit.processes import child_process, free_port, wait_healthy
from devkit.tts_client import ws_url

AGENT_START_TIMEOUT_S = 60.0


@contextmanager
def tts_server(
    env: dict[str, str] | None = None, timeout_s: float = 300.0, log_path: Path | None = None
) -> Iterator[str]:
    """Start the server on 127.0.0.1 with the real model; yields its base URL; stops it."""
    port = free_port()
    child_env = {**os.environ, "KOKORO_HOST": "127.0.0.1", "KOKORO_PORT": str(port), **(env or {})}
    base_url = f"http://127.0.0.1:{port}"
    with child_process([sys.executable, str(SERVE)], child_env, log_path) as proc:
        wait_healthy(base_url, timeout_s, proc)
        yield base_url


@contextmanager
def voice_agent_stack(
    tokens_per_s: float, log_dir: Path, voice: str | None = None
) -> Iterator[str]:
    """TTS server + agent on loopback; yields the agent's base URL."""
    tts_log, agent_log = log_dir / "agent_demo_tts.log", log_dir / "agent_demo_agent.log"
    print(f"==> starting the Kokoro TTS server on 127.0.0.1 (log: {tts_log})")
    tts_env = {"KOKORO_VOICE": voice} if voice else {}
    with tts_server(env=tts_env, log_path=tts_log) as tts_url:
        agent_port = free_port()
        agent_env = dict(
            os.environ,
            HOST="127.0.0.1",
            PORT=str(agent_port),
            TTS_URL=ws_url(tts_url),
            AGENT_TEXT_SOURCE="replay",
            AGENT_REPLAY_TOKENS_PER_S=str(tokens_per_s),
        )
        agent_url = f"http://127.0.0.1:{agent_port}"
        print(f"==> starting the voice agent on 127.0.0.1:{agent_port} (log: {agent_log})")
        with child_process([sys.executable, "-m", "voice_agent"], agent_env, agent_log) as agent:
            wait_healthy(agent_url, AGENT_START_TIMEOUT_S, agent)
            yield agent_url

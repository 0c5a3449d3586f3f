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
def voice_agent(
    tts_url: str, tokens_per_s: float, log_path: Path | None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """The agent alone on 127.0.0.1 in front of a running TTS server, its text replayed at
    `tokens_per_s` (env adds or overrides AgentSettings variables); yields its base URL."""
    agent_port = free_port()
    agent_env = dict(
        os.environ,
        HOST="127.0.0.1",
        PORT=str(agent_port),
        TTS_URL=ws_url(tts_url),
        AGENT_TEXT_SOURCE="replay",
        AGENT_REPLAY_TOKENS_PER_S=str(tokens_per_s),
        **(env or {}),
    )
    agent_url = f"http://127.0.0.1:{agent_port}"
    with child_process([sys.executable, "-m", "voice_agent"], agent_env, log_path) as agent:
        wait_healthy(agent_url, AGENT_START_TIMEOUT_S, agent)
        yield agent_url


@contextmanager
def voice_agent_stack(
    tokens_per_s: float,
    log_dir: Path,
    voice: str | None = None,
    tts_env: dict[str, str] | None = None,
    agent_env: dict[str, str] | None = None,
    log_prefix: str = "agent_demo",
) -> Iterator[str]:
    """TTS server + agent on loopback; yields the agent's base URL."""
    tts_log, agent_log = log_dir / f"{log_prefix}_tts.log", log_dir / f"{log_prefix}_agent.log"
    print(f"==> starting the Kokoro TTS server on 127.0.0.1 (log: {tts_log})")
    env = {**(tts_env or {}), **({"KOKORO_VOICE": voice} if voice else {})}
    with tts_server(env=env, log_path=tts_log) as tts_url:
        print(f"==> starting the voice agent on 127.0.0.1 (log: {agent_log})")
        with voice_agent(tts_url, tokens_per_s, agent_log, agent_env) as agent_url:
            yield agent_url

"""The playground as the browser tests run it: the real Kokoro app (the model the suite
already loaded), the real voice agent app and the page server, each served by uvicorn on
127.0.0.1 in this process; the agent's text is a scripted conversation (not an LLM).

`Playground.restart_agent()` stops the agent's server (its connections drop, as when the
process dies) and serves a fresh agent on the same port, so the page can reconnect."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from devkit.loopback import AppServer
from devkit.processes import free_port
from playground.server import PageConfig
from playground.server import create_app as create_page_app
from playground.targets import LocalAgent
from voice_agent.app import create_app as create_agent_app
from voice_agent.settings import AgentSettings


@dataclass
class Playground:
    tts_ws: str
    script: list[str]
    tokens_per_s: float
    workdir: Path
    agent_port: int = field(default_factory=free_port)
    agent: AppServer | None = None
    page: AppServer | None = None

    def agent_env(self) -> dict[str, str]:
        script = self.workdir / "conversation.txt"
        script.write_text("\n---\n".join(self.script) + "\n", encoding="utf-8")
        return {
            "TTS_URL": self.tts_ws,
            "AGENT_TEXT_SOURCE": "replay",
            "AGENT_REPLAY_FILE": str(script),
            "AGENT_REPLAY_TOKENS_PER_S": str(self.tokens_per_s),
        }

    def start_agent(self) -> None:
        settings = AgentSettings.from_env(self.agent_env())
        self.agent = AppServer(create_agent_app(settings), port=self.agent_port).start()

    def restart_agent(self) -> None:
        assert self.agent is not None
        self.agent.stop()
        self.start_agent()

    @property
    def agent_ws(self) -> str:
        return f"ws://127.0.0.1:{self.agent_port}/ws"

    @property
    def url(self) -> str:
        assert self.page is not None
        return f"{self.page.http}/"

    def __enter__(self) -> Playground:
        self.start_agent()
        config = PageConfig(LocalAgent(self.agent_ws))
        self.page = AppServer(create_page_app(config)).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        for server in (self.page, self.agent):
            if server is not None:
                server.stop()


def serve_playground(
    tts_ws: str,
    script: list[str],
    tmp_path_factory: pytest.TempPathFactory,
    tokens_per_s: float = 40.0,
) -> Iterator[Playground]:
    """The body of a test module's `stack` fixture: a playground on the suite's TTS server
    answering `script`, one answer per turn, for as long as the fixture lasts."""
    with Playground(tts_ws, script, tokens_per_s, tmp_path_factory.mktemp("pg")) as playground:
        yield playground

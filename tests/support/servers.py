"""Servers the tests start on 127.0.0.1, built on devkit's one loopback runner.

- ThreadedServer: the real Kokoro container app sharing an already loaded SynthesisService
  (the real model, or the tone test double), with a look at its live sessions.
- AgentStack: FakeTtsServer (test double) + the real agent app, both on one background loop,
  for synchronous hypothesis tests that drive it with real clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
from kokoro_stream.websocket import WebSocketTts

from devkit.loopback import AppServer, BackgroundLoop, serve
from devkit.processes import free_port
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app as create_kokoro_app
from kokoro_server.serving.serve import uvicorn_options
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.fake_tts import FakeTtsServer, fake_pcm
from voice_agent.app import create_app as create_agent_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

SESSION_TASK_PREFIXES = ("recv-", "synth-", "send-")


class ThreadedServer(AppServer):
    """The real Kokoro container app, sharing an already loaded SynthesisService, served
    as `serve` serves it (serve.uvicorn_options: its HTTP and WebSocket protocols)."""

    def __init__(self, settings: Settings, service: SynthesisService) -> None:
        port = free_port()
        settings = dataclasses.replace(settings, port=port)
        super().__init__(
            create_kokoro_app(settings, service), port=port, **uvicorn_options(settings)
        )

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/invocations-bidirectional-stream"

    def session_tasks(self) -> list[str]:
        def names() -> list[str]:
            return [
                t.get_name()
                for t in asyncio.all_tasks()
                if t.get_name().startswith(SESSION_TASK_PREFIXES)
            ]

        return self.call(names)

    def active_sessions(self) -> int:
        return self.call(lambda: len(self.app.state.active_sessions))

    def demanding_sessions(self) -> int:
        """Sessions admission control counts now (speaking or about to)."""
        return self.call(lambda: sum(s.demanding for s in self.app.state.active_sessions))

    def voices(self) -> dict[str, Any]:
        """The server's own GET /voices answer, as JSON."""
        answer = httpx.get(f"{self.http}/voices", timeout=30)
        answer.raise_for_status()
        listed: dict[str, Any] = answer.json()
        return listed


@contextlib.contextmanager
def model_server(settings: Settings) -> Iterator[ThreadedServer]:
    """The real model loaded with `settings` of its own (other weights, a user voices folder)
    and served; stopped and unloaded afterwards."""
    service = SynthesisService(settings)
    service.load()
    assert service.ready, service.failure
    srv = ThreadedServer(settings, service).start()
    try:
        yield srv
    finally:
        srv.stop()
        service.shutdown()


# Three sentences, split by FakeTtsServer exactly like this.
ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"
FAST_TOKENS_PER_S = 2000.0


def make_agent(
    tts_url: str,
    answer: str = ANSWER,
    rate: float = FAST_TOKENS_PER_S,
    tts_idle_timeout_s: float = 30.0,
) -> Any:
    """The real agent app with a replayed answer, speaking to the TTS at tts_url."""
    return create_agent_app(
        AgentSettings(tts_idle_timeout_s=tts_idle_timeout_s),
        ReplayedAnswerSource(answer, tokens_per_s=rate),
        WebSocketTts(tts_url),
    )


def expected_pcm(tts: FakeTtsServer, sentences: int = 3) -> bytes:
    """What FakeTtsServer sends for `sentences` sentences, in order."""
    return b"".join(
        fake_pcm(i, k, tts.frame_bytes)
        for i in range(sentences)
        for k in range(tts.frames_per_sentence)
    )


@dataclasses.dataclass(frozen=True)
class _Stack:
    tts: FakeTtsServer
    base: str


class AgentStack(BackgroundLoop[_Stack]):
    """FakeTtsServer + the agent on uvicorn, both in one background event loop."""

    def __init__(self, **fake_kwargs: Any) -> None:
        super().__init__(lambda: self._both(fake_kwargs))

    @staticmethod
    @contextlib.asynccontextmanager
    async def _both(fake_kwargs: dict[str, Any]) -> AsyncIterator[_Stack]:
        async with FakeTtsServer(**fake_kwargs) as tts, serve(make_agent(tts.url)) as base:
            yield _Stack(tts, base)

    @property
    def tts(self) -> FakeTtsServer:
        return self.value.tts

    @property
    def base(self) -> str:
        return self.value.base

    @property
    def ws(self) -> str:
        return self.base.replace("http", "ws") + "/ws"

    def live_tasks(self) -> int:
        """Tasks on the stack's loop besides the servers' own (0 when idle)."""
        return self.call(lambda: len(asyncio.all_tasks()))


async def leftover_tasks_and_threads(
    before: set[asyncio.Task[Any]], threads_before: set[threading.Thread], within_s: float = 5.0
) -> set[Any]:
    """New asyncio tasks or threads still alive after `within_s` (empty when all ended)."""
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        leaked: set[Any] = {t for t in asyncio.all_tasks() - before if not t.done()}
        leaked.discard(asyncio.current_task())
        leaked |= {t for t in set(threading.enumerate()) - threads_before if t.is_alive()}
        if not leaked or asyncio.get_running_loop().time() > deadline:
            return leaked
        await asyncio.sleep(0.05)

"""The real agent app on uvicorn (loopback) in front of a TTS server, served from a background
thread's event loop, so sync hypothesis tests can drive it with real clients from their own
`asyncio.run` per example. The TTS behind it is FakeTtsServer (a test double emitting
synthetic PCM) unless a URL of a real server is given."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from tests.agent.fake_tts import FakeTtsServer, fake_pcm
from tests.agent.loopback import serve_app
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.tts.websocket import WebSocketTts

# Three sentences, split by FakeTtsServer exactly like this.
ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"
FAST_TOKENS_PER_S = 2000.0


def make_agent(
    tts_url: str,
    answer: str = ANSWER,
    rate: float = FAST_TOKENS_PER_S,
    tts_idle_timeout_s: float = 30.0,
) -> Any:
    return create_app(
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


class AgentStack:
    """FakeTtsServer + the agent on uvicorn, both in one background event loop."""

    def __init__(self, **fake_kwargs: Any) -> None:
        self.fake_kwargs = fake_kwargs
        self.tts: FakeTtsServer | None = None
        self.base = ""
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._failure: BaseException | None = None

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with (
                FakeTtsServer(**self.fake_kwargs) as tts,
                serve_app(make_agent(tts.url)) as base,
            ):
                self.tts, self.base = tts, base
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # surfaced by start()
            self._failure = exc
            self._ready.set()

    @property
    def ws(self) -> str:
        return self.base.replace("http", "ws") + "/ws"

    def start(self) -> AgentStack:
        self._thread.start()
        if not self._ready.wait(20) or self._failure is not None:
            raise RuntimeError(f"agent stack did not start: {self._failure!r}")
        return self

    def stop(self) -> None:
        if self.loop is not None and self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)

    def call(self, fn: Callable[[], Any]) -> Any:
        """fn() on the stack's loop (to look at its tasks)."""
        assert self.loop is not None

        async def wrapper() -> Any:
            return fn()

        future: Future[Any] = asyncio.run_coroutine_threadsafe(wrapper(), self.loop)
        return future.result(timeout=5)

    def live_tasks(self) -> int:
        """Tasks on the stack's loop besides the servers' own (0 when idle)."""
        return self.call(lambda: len(asyncio.all_tasks()))

"""Test double for scheduling tests: `GatedTone`, the tone engine (devkit/tone.py) whose every
synthesis waits until the test opens its gate and records the order in which the worker
started the sentences, so orders are deterministic without timing assertions; and the
long sentences and session opener those tests share (tests/container/test_scheduling.py,
tests/stacks/test_log_metrics.py)."""

from __future__ import annotations

import threading
import time

import numpy as np
from websockets.asyncio.client import ClientConnection, connect

from devkit.tone import ToneEngine, ToneSynthesisService
from kokoro_server.config import Settings
from kokoro_server.engine.stop import Stopped, StopSignal
from tests.support.ws_frames import send


class GatedTone(ToneEngine):
    """Test double: tone audio, released one synthesis at a time by the test. A synthesis
    waiting at the gate stops when its StopSignal is set (cancel or pre-emption), as the
    model's call does, without using up a release."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Semaphore(0)
        self.started: list[str] = []

    def synthesize(
        self, text: str, voice: str, speed: float = 1.0, stop: StopSignal | None = None
    ) -> np.ndarray:
        self.started.append(text)
        give_up = time.monotonic() + 30
        while not self.gate.acquire(timeout=0.01):
            if stop is not None and stop.stopped:
                raise Stopped("gated tone stopped")
            if time.monotonic() > give_up:
                raise TimeoutError("the test never opened the gate")
        return super().synthesize(text, voice, speed, stop)


def gated_service(settings: Settings) -> tuple[ToneSynthesisService, GatedTone]:
    service = ToneSynthesisService(settings)
    service.load()
    engine = GatedTone()
    # The tone engine stands in for KokoroEngine by its methods, as in ToneSynthesisService.
    service.engine = engine  # type: ignore[assignment]
    return service, engine


LONG = (
    "This sentence is long on purpose so that its audio plays for several seconds at half "
    "speed and the session that sent it has plenty of audio ahead of its listener before "
    "it needs the next one"
)


def long_sentences(tag: str) -> str:
    return f"{LONG} {tag} one. {LONG} {tag} two."


async def open_session(url: str, text: str) -> ClientConnection:
    ws = await connect(url, max_queue=None, max_size=None)
    await send(ws, {"type": "start", "format": "pcm", "speed": 0.5})
    await send(ws, {"text": text})
    return ws


# About 480 characters in one sentence: 9.6 s of tone at half speed.
VERY_LONG = f"{LONG} and then {LONG} again"
# How long the test holds Z's first sentence: the service's cost estimate. E must arrive
# while more than the pre-emption slack (0.25 s) of Z2's estimate is left, so 2 s leaves
# 1.75 s for E's connect on a loaded CI machine (3 s cost 2 s more per run for no gain).
HOLD_S = 2.0

"""Concurrent streaming sessions with /ping sampling: used by the load tests and the soak."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import httpx
from websockets.asyncio.client import connect

from tests.support import heap
from tests.support.transcript import Transcript, parse


@dataclass
class SessionResult:
    transcript: Transcript
    ttfa_ms: float | None  # first text frame sent -> first audio byte received
    seconds: float


@dataclass
class PingSampler:
    """GETs /ping every `interval` s from its own thread and keeps every latency.

    Before it samples, the objects the test process already holds are frozen out of the
    garbage collector (`tests.support.heap`): the server under test shares a pytest worker
    with everything earlier tests left behind (about 800,000 objects late in a run), and one
    full collection of that heap stalled every thread for 1.0-1.4 s, a /ping over the 250 ms
    limit that is the harness's, not the server's (the server's own heap after loading the
    model is about 100,000 objects). What is allocated while sampling is collected as usual.
    They stay frozen after it: unfreezing would also release what the run froze after
    collection (tests/conftest.py).
    """

    http: str
    interval: float = 0.05
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(timeout=5) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    response = client.get(f"{self.http}/ping")
                    if response.status_code != 200:
                        self.failures.append(f"status {response.status_code}")
                except httpx.HTTPError as exc:
                    self.failures.append(repr(exc))
                self.latencies_ms.append((time.perf_counter() - started) * 1000)
                self._stop.wait(self.interval)

    def __enter__(self) -> PingSampler:
        heap.freeze_what_is_alive()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def deltas(text: str, size: int) -> list[str]:
    """Cut text into LLM-like deltas of `size` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


async def stream_session(
    url: str, paragraphs: list[str], delta_chars: int = 7, pause_s: float = 0.002
) -> SessionResult:
    """One session: each paragraph streamed as deltas then flushed; then close."""
    frames: list = []
    first_audio: float | None = None
    started = time.perf_counter()
    async with connect(url, max_queue=None) as ws:

        async def read() -> None:
            nonlocal first_audio
            async for raw in ws:
                if isinstance(raw, bytes):
                    first_audio = first_audio or time.perf_counter()
                    frames.append(raw)
                else:
                    frames.append(json.loads(raw))

        reader = asyncio.create_task(read())
        await ws.send(json.dumps({"type": "start", "format": "pcm"}))
        for paragraph in paragraphs:
            for piece in deltas(paragraph, delta_chars):
                await ws.send(json.dumps({"type": "text", "text": piece}))
                await asyncio.sleep(pause_s)
            await ws.send(json.dumps({"type": "flush"}))
        await ws.send(json.dumps({"type": "close"}))
        await reader
    ttfa = None if first_audio is None else (first_audio - started) * 1000
    return SessionResult(parse(frames), ttfa, time.perf_counter() - started)


async def run_concurrent(
    url: str, scripts: list[list[str]], timeout: float
) -> list[SessionResult | BaseException]:
    tasks = [stream_session(url, paragraphs) for paragraphs in scripts]
    return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout)


def _concurrent_in_child(
    url: str, scripts: list[list[str]], timeout: float
) -> list[SessionResult | BaseException]:
    results = asyncio.run(run_concurrent(url, scripts, timeout))
    # Exceptions from the clients' libraries need not pickle: their repr crosses instead.
    return [r if isinstance(r, SessionResult) else RuntimeError(repr(r)) for r in results]


def run_concurrent_apart(
    url: str, scripts: list[list[str]], timeout: float
) -> list[SessionResult | BaseException]:
    """run_concurrent in a child process. The clients then do not share the server's
    interpreter (it runs in the test's process, as ThreadedServer): /ping latencies sampled
    meanwhile are the server's own, as in production where callers are elsewhere, not the
    test's clients holding the lock (16 of them once held a ping for a second)."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        return pool.submit(_concurrent_in_child, url, scripts, timeout).result(timeout + 60)


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def signature(result: SessionResult) -> list[tuple[str, int, str]]:
    """Per sentence: text, byte count, sha256 of the audio."""
    return [(s.text, len(s.audio), s.sha256) for s in result.transcript.sentences]

"""Barge-in races on the real server over loopback: `cancel` at every phase of a session.

Phases: before any audio (in the same read as the text, and in a separate read while the
model works), mid-sentence (audio frames going out), between sentences (sentence 0 sent,
sentence 1 in the model), after `close` (same read, separate read), and repeated cancels.
Each loop asserts: `cancelled` comes and no audio of a dropped sentence follows it; a cancel
after `close` ends the session with `session_end`; the sentence in the model was stopped
(its job ended early, not run to its end); admission control's count is back to zero; the
next answer's first audio is exactly that answer's.

The tone test double (devkit/tone.py) sleeps per sentence like a model and stops when told,
so loops are fast; a few runs use the real model. KOKORO_RACE_LOOPS (default 2) sets the
loop count; CI raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from websockets.asyncio.client import ClientConnection, connect

from devkit.tone import tone_bytes
from tests.support.transcript import parse
from tests.support.ws_frames import Frame, is_type, read_until, send

pytestmark = pytest.mark.slow  # every race loops KOKORO_RACE_LOOPS times

LOOPS = int(os.environ.get("KOKORO_RACE_LOOPS", "2"))
DELAY_S = 0.6  # tone "inference" per sentence: long enough that a cancel lands inside it
TWO = "The first sentence is here. The second sentence follows it. "
NEXT = "Next answer."
LONG = "This sentence is long enough to be sent as many small audio frames. " * 3


@contextlib.asynccontextmanager
async def pcm_session(url: str) -> AsyncIterator[ClientConnection]:
    """A session in raw PCM, whose audio compares byte for byte with tone_bytes()."""
    async with connect(url, max_queue=None) as ws:
        await send(ws, {"type": "start", "format": "pcm"})
        yield ws


def wait_until(check, what: str, timeout: float = 5.0) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, f"never: {what}"
        time.sleep(0.005)


@contextlib.contextmanager
def stops_a_running_job(service, expected: bool) -> Iterator[None]:
    """When `expected`: after the block, waits until the service stopped one more job than
    before it (the block's cancel or hang-up cut a sentence short in the model)."""
    before = service.stopped_jobs
    yield
    if expected:
        wait_until(lambda: service.stopped_jobs > before, "a running job stopped")


async def in_model(service, timeout: float = 5.0) -> None:
    """Until a worker runs one of the session's sentences: a cancel now must stop it.

    Waits on the service, not on a clock: a sentence is submitted before its predecessor's
    audio goes out, but the worker thread may take it only later on a busy machine."""
    started = time.monotonic()
    while service.running == 0:
        assert time.monotonic() - started < timeout, "never: a sentence in the model"
        await asyncio.sleep(0.002)


async def _send_pair(ws: ClientConnection, first: dict, second: dict, same_read, service) -> None:
    """Two frames in one read (written back to back), or the second once the model works."""
    await send(ws, first)
    if not same_read:
        await in_model(service)
    await send(ws, second)


async def cancel_at(ws: ClientConnection, phase: str, service) -> list[Frame]:
    """Drive one answer to `phase`, cancel there; the frames read up to the cancel's reply."""
    seen: list[Frame] = []
    if phase == "before-audio-same-read":
        await _send_pair(ws, {"type": "text", "text": TWO}, {"type": "cancel"}, True, service)
    elif phase == "before-audio-separate-reads":
        await _send_pair(ws, {"type": "text", "text": TWO}, {"type": "cancel"}, False, service)
    elif phase == "mid-sentence":
        await send(ws, {"text": LONG})
        seen += await read_until(ws, lambda f: isinstance(f, bytes), timeout=10)
        await send(ws, {"type": "cancel"})
    elif phase == "between-sentences":
        await send(ws, {"text": TWO})  # an utterance: both sentences queued at once
        seen += await read_until(ws, is_type("synthesis_complete"), timeout=10)
        await in_model(service)  # sentence 1
        await send(ws, {"type": "cancel"})
    elif phase == "repeated":
        await send(ws, {"type": "text", "text": TWO})
        await send(ws, {"type": "cancel"})
        await send(ws, {"type": "cancel"})
        seen += await read_until(ws, is_type("cancelled"), timeout=10)
        await send(ws, {"type": "text", "text": TWO})
        await in_model(service)
        await send(ws, {"type": "cancel"})
    else:
        raise AssertionError(phase)
    seen += await read_until(ws, is_type("cancelled"), timeout=10)
    return seen


PHASES = [
    "before-audio-same-read",
    "before-audio-separate-reads",
    "mid-sentence",
    "between-sentences",
    "repeated",
]
# Where the cancel certainly lands while a sentence is inside the (tone) model.
STOPS_A_RUNNING_JOB = {"before-audio-separate-reads", "between-sentences", "repeated"}


@pytest.mark.parametrize("phase", PHASES)
async def test_cancel_at_each_phase_then_next_answer(make_tone_server, phase):
    srv = make_tone_server(delay_s=DELAY_S)
    service = srv.app.state.service

    for _ in range(LOOPS):
        async with pcm_session(srv.ws) as ws:
            with stops_a_running_job(service, expected=phase in STOPS_A_RUNNING_JOB):
                frames = await cancel_at(ws, phase, service)
                wait_until(lambda: srv.demanding_sessions() == 0, "busy count back to zero")
            await send(ws, {"text": NEXT})
            frames += await read_until(ws, is_type("flushed"), timeout=10)
            await send(ws, {"type": "close"})
            frames += await read_until(ws, is_type("session_end"), timeout=10)
        transcript = parse(frames)
        assert transcript.problems == []  # no audio of a dropped sentence after cancelled
        assert transcript.errors == []
        last = transcript.epochs[-1].sentences
        assert [s.text for s in last] == [NEXT]
        assert bytes(last[0].audio) == tone_bytes(NEXT)
    wait_until(lambda: srv.active_sessions() == 0, "sessions released")


@pytest.mark.parametrize("same_read", [True, False], ids=["same-read", "separate-reads"])
async def test_cancel_after_close_is_read_and_ends_the_session(make_tone_server, same_read):
    """The agent's case: the LLM finished (close sent), then the caller barged in."""
    srv = make_tone_server(delay_s=DELAY_S)
    service = srv.app.state.service

    for _ in range(LOOPS):
        # With separate reads the cancel comes while the first sentence is in the model.
        with stops_a_running_job(service, expected=not same_read):
            async with pcm_session(srv.ws) as ws:
                await send(ws, {"type": "text", "text": TWO + "A third one. And a fourth."})
                await _send_pair(ws, {"type": "close"}, {"type": "cancel"}, same_read, service)
                frames = await read_until(ws, is_type("session_end"), timeout=10)
        kinds = [f["type"] for f in frames if isinstance(f, dict)]
        assert "cancelled" in kinds
        cancelled = next(f for f in frames if isinstance(f, dict) and f["type"] == "cancelled")
        assert cancelled["dropped"] >= 3  # the queued sentences never reach the model
        assert parse(frames).problems == []
        wait_until(lambda: service.running == 0, "engine free")
        wait_until(lambda: srv.active_sessions() == 0, "session released")
        # The next answer, on a new session, is spoken whole.
        frames = await _one_answer(srv.ws, NEXT)
        assert bytes(parse(frames).sentences[0].audio) == tone_bytes(NEXT)


def test_after_close_only_cancel_is_taken(make_tone_server):
    """Text after `close` is refused with a non-fatal error, never silently dropped."""
    srv = make_tone_server(delay_s=0.2)

    async def run() -> list[Frame]:
        async with connect(srv.ws, max_queue=None) as ws:
            await send(ws, {"type": "text", "text": "Spoken."})
            await send(ws, {"type": "close"})
            await send(ws, {"type": "text", "text": "Too late."})
            return await read_until(ws, is_type("session_end"), timeout=10)

    transcript = parse(asyncio.run(run()))
    assert [e["code"] for e in transcript.errors] == ["session_closing"]
    assert transcript.errors[0]["fatal"] is False
    assert [s.text for s in transcript.sentences] == ["Spoken."]


HANGUP_PHASES = ["before-audio", "mid-synthesis", "mid-audio", "after-close"]


@pytest.mark.parametrize("phase", HANGUP_PHASES)
@pytest.mark.parametrize("abrupt", [False, True], ids=["close-frame", "tcp-reset"])
def test_hang_up_frees_engine_and_admission(make_tone_server, phase, abrupt):
    """A caller that hangs up stops counting at once and its running sentence stops; with
    the load check on, the next caller is admitted and speaks."""
    srv = make_tone_server(delay_s=DELAY_S, max_load=1.0)
    service = srv.app.state.service

    async def hang_up() -> None:
        ws = await connect(srv.ws, max_queue=None)
        if phase != "before-audio":
            await send(ws, {"text": TWO})  # both sentences queued: one is always in the model
        if phase == "mid-synthesis":
            await in_model(service)
        elif phase == "mid-audio":
            await read_until(ws, lambda f: isinstance(f, bytes), timeout=10)
            await in_model(service)  # sentence 1
        elif phase == "after-close":
            await send(ws, {"type": "close"})
            await in_model(service)
        if abrupt:
            ws.transport.abort()
        else:
            await ws.close()

    for _ in range(LOOPS):
        with stops_a_running_job(service, expected=phase != "before-audio"):
            asyncio.run(hang_up())
            wait_until(lambda: srv.active_sessions() == 0, "session released")
        wait_until(lambda: service.running == 0, "engine free")
        frames = asyncio.run(_one_answer(srv.ws, NEXT))
        transcript = parse(frames)
        assert transcript.errors == []  # never `busy`: the hung-up caller counts no more
        assert bytes(transcript.sentences[0].audio) == tone_bytes(NEXT)


def test_a_burst_cannot_overcommit(make_tone_server):
    """Admitted sessions count before they speak: of callers connecting at once, the ones
    beyond capacity get `busy` at once instead of all being admitted."""
    srv = make_tone_server(delay_s=0.05, max_load=1.0)
    service = srv.app.state.service
    # Measured capacity first: the tone double makes 10 ms of audio per character.
    asyncio.run(_one_answer(srv.ws, "A sentence to measure the capacity with. " * 2))
    streams = service.capacity_streams()
    assert streams is not None

    async def burst(n: int) -> list[str]:
        sockets = [await connect(srv.ws, max_queue=None) for _ in range(n)]
        first = []
        for ws in sockets:
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
                first.append(json.loads(raw).get("code", "?") if isinstance(raw, str) else "audio")
            except TimeoutError:
                first.append("admitted")
        for ws in sockets:
            await ws.close()
        return first

    n = int(streams) + 3
    outcome = asyncio.run(burst(n))
    admitted = outcome.count("admitted")
    assert outcome.count("busy") == n - admitted
    assert 1 <= admitted <= max(1, int(streams))  # never more than capacity allows


def test_a_burst_is_admitted_one_start_at_a_time_when_asked(make_tone_server):
    """KOKORO_MAX_STARTING=1: while one admitted session waits for its first audio, the next
    caller gets `busy` at once; once that audio went out, the next one is admitted."""
    srv = make_tone_server(delay_s=0.3, max_load=1.0, max_starting=1)
    asyncio.run(_one_answer(srv.ws, "A sentence to measure the capacity with."))

    async def run() -> tuple[str, str, str]:
        async with connect(srv.ws, max_queue=None) as first:
            await send(first, {"text": "The first caller speaks."})
            async with connect(srv.ws, max_queue=None) as second:
                refused = json.loads(await asyncio.wait_for(second.recv(), 5))["code"]
            await read_until(first, is_type("synthesis_complete"), timeout=10)
            async with connect(srv.ws, max_queue=None) as third:
                await send(third, {"text": "Third."})
                frames = await read_until(third, is_type("flushed"), timeout=10)
        return refused, parse(frames).sentences[0].text, str(parse(frames).errors)

    assert asyncio.run(run()) == ("busy", "Third.", "[]")


async def _one_answer(url: str, text: str) -> list[Frame]:
    async with connect(url, max_queue=None) as ws:
        await send(ws, {"text": text})
        await send(ws, {"type": "close"})
        return await read_until(ws, is_type("session_end"), timeout=30)


@pytest.mark.model
def test_real_model_cancel_stops_the_model_call(make_server, service):
    """The real model: cancel inside a long one-clause sentence stops its ONNX call (the
    job ends Stopped, not after the whole sentence) and the next reply is spoken."""
    srv = make_server()
    long_clause = "and the river kept on winding through the valley " * 6

    async def run() -> list[Frame]:
        async with connect(srv.ws, max_queue=None) as ws:
            await send(ws, {"text": long_clause})
            await asyncio.sleep(0.3)
            await send(ws, {"type": "cancel"})
            frames = await read_until(ws, is_type("cancelled"), timeout=30)
            await send(ws, {"text": "Okay."})
            await send(ws, {"type": "close"})
            return frames + await read_until(ws, is_type("session_end"), timeout=60)

    stopped_before = service.stopped_jobs
    transcript = parse(asyncio.run(run()))
    assert service.stopped_jobs == stopped_before + 1
    assert transcript.problems == [] and transcript.errors == []
    assert [s.text for s in transcript.epochs[-1].sentences] == ["Okay."]
    assert transcript.epochs[-1].sentences[0].complete
    wait_until(lambda: srv.demanding_sessions() == 0 and srv.active_sessions() == 0, "released")

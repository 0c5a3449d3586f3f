"""The synthesis thread pool takes work in the scheduler's order; sessions supply deadlines.

Test double: `GatedTone`, the tone engine (tone.py) whose every synthesis waits until the test
opens its gate and records the order in which the worker started the sentences. That makes
the order deterministic without timing assertions: the test holds the single worker, lets
jobs pile up, then lets them through one by one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect

from devkit.tone import ToneSynthesisService, tone_bytes
from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import Dropped
from tests.support.gated_tone import (
    HOLD_S,
    LONG,
    VERY_LONG,
    GatedTone,
    gated_service,
    long_sentences,
    open_session,
)
from tests.support.servers import ThreadedServer
from tests.support.ws_frames import audio_by_sentence, is_type, read_until, send


async def until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


@pytest.fixture
def gated(base_settings: Settings) -> Iterator[Callable[..., tuple]]:
    made: list[ToneSynthesisService] = []

    def make(**overrides: Any) -> tuple[ToneSynthesisService, GatedTone, Settings]:
        settings = dataclasses.replace(base_settings, synth_workers=1, **overrides)
        service, engine = gated_service(settings)
        made.append(service)
        return service, engine, settings

    yield make
    for service in made:
        service.shutdown()


@pytest.mark.parametrize(
    ("policy", "order"),
    [
        ("deadline", ["hold", "a1", "a2", "b1", "c1"]),  # a2 is due first, so a1 before it
        ("fifo", ["hold", "a1", "b1", "c1", "a2"]),
    ],
)
async def test_the_pool_takes_jobs_in_scheduler_order(gated, policy, order) -> None:
    service, engine, _ = gated(scheduler=policy)
    now = time.perf_counter()

    def job(text: str, owner: str, due_in: float) -> asyncio.Task:
        return asyncio.create_task(
            service.synthesize(
                text, "tone_low", 1.0, "pcm", 24000, deadline=now + due_in, owner=owner
            )
        )

    hold = job("hold", "z", 0)
    await until(lambda: engine.started == ["hold"], "the worker to hold the first job")
    queued = [job("a1", "a", 30), job("b1", "b", 10), job("c1", "c", 10), job("a2", "a", 1)]
    await until(lambda: service.queued == 4, "four queued jobs")
    for _ in range(5):
        engine.gate.release()
    results = await asyncio.gather(hold, *queued)
    assert engine.started == order
    assert [r.data for r in results] == [tone_bytes(t) for t in ("hold", "a1", "b1", "c1", "a2")]


async def test_drop_removes_a_sessions_queued_jobs_at_once(gated) -> None:
    service, engine, _ = gated()

    def job(text: str, owner: str) -> asyncio.Task:
        return asyncio.create_task(
            service.synthesize(text, "tone_low", 1.0, "pcm", 24000, owner=owner)
        )

    hold = job("hold", "z")
    await until(lambda: engine.started == ["hold"], "the worker to hold the first job")
    a1, b1, a2 = job("a1", "a"), job("b1", "b"), job("a2", "a")
    await until(lambda: service.queued == 3, "three queued jobs")
    assert service.drop("a") == 2
    assert service.queued == 1
    for task in (a1, a2):
        with pytest.raises(Dropped):
            await task
    waiter_gone = job("c1", "c")
    await until(lambda: service.queued == 2, "c1 queued")
    waiter_gone.cancel()  # its session went away: the job leaves the queue unrun
    await until(lambda: service.queued == 1, "c1 discarded")
    engine.gate.release(2)
    assert (await hold).data == tone_bytes("hold")
    assert (await b1).data == tone_bytes("b1")
    assert engine.started == ["hold", "b1"]


# About 200 characters without a comma (no first-clause split): 4 s of tone at half speed.
@pytest.mark.parametrize("policy", ["deadline", "fifo"])
async def test_a_new_sessions_first_sentence_passes_sentences_not_yet_needed(gated, policy):
    """Sessions Z and A have their second sentences queued, due when their first ends (about
    4 s of half-speed audio ahead); new session E's first sentence is due now. Deadline: E goes
    first. FIFO: E waits behind them. Without pre-emption (the next test has it): E waits for
    the sentence already in the worker."""
    service, engine, settings = gated(scheduler=policy, preempt_max=0)
    srv = ThreadedServer(settings, service).start()
    try:
        z = await open_session(srv.ws, long_sentences("zed"))
        await until(lambda: len(engine.started) == 1, "Z's first sentence in the worker")
        a = await open_session(srv.ws, long_sentences("ay"))
        await until(lambda: service.queued == 1, "A's first sentence queued")
        engine.gate.release()  # Z1 done -> Z2 queued; the worker takes A1
        await until(lambda: len(engine.started) == 2 and service.queued == 1, "A1 running")
        engine.gate.release()  # A1 done -> A2 queued; the worker takes Z2 (or A2)
        await until(lambda: len(engine.started) == 3 and service.queued == 1, "one left")
        e = await open_session(srv.ws, "Now.")
        await until(lambda: service.queued == 2, "E's sentence queued")
        engine.gate.release(3)  # the one running, then the two queued
        frames = [await read_until(ws, is_type("flushed"), timeout=30) for ws in (z, a, e)]
        for ws in (z, a, e):
            await ws.close()
    finally:
        srv.stop()
    fourth = engine.started[3]
    assert (fourth == "Now.") == (policy == "deadline"), engine.started
    assert sorted(engine.started) == sorted(
        [f"{LONG} {tag} {n}." for tag in ("zed", "ay") for n in ("one", "two")] + ["Now."]
    )
    for session, tag in zip(frames[:2], ("zed", "ay"), strict=True):
        audio = audio_by_sentence(session)
        assert audio == {
            0: tone_bytes(f"{LONG} {tag} one.", speed=0.5),
            1: tone_bytes(f"{LONG} {tag} two.", speed=0.5),
        }
    assert audio_by_sentence(frames[2]) == {0: tone_bytes("Now.", speed=0.5)}


@pytest.mark.parametrize("preempt_max", [1, 0])
async def test_a_newcomer_preempts_a_running_sentence_its_listener_does_not_need_yet(
    gated, preempt_max
) -> None:
    """Z's first sentence takes HOLD_S of "model" time; its second is in the worker, due when
    the first's 9.6 s of audio has played. Newcomer E's first sentence is due now and would
    wait up to HOLD_S for it; a rerun of Z's second after E still ends seconds before Z's
    listener needs it. With pre-emption the worker stops Z's sentence, runs E's, then Z's
    again; every sentence's audio is still complete, in order and the solo audio. Without it
    E waits. (The worker's order is the proof; no timing is asserted.)"""
    service, engine, settings = gated(preempt_max=preempt_max, max_segment_chars=600)
    z_text = f"{VERY_LONG} zed one. {VERY_LONG} zed two."
    srv = ThreadedServer(settings, service).start()
    try:
        z = await open_session(srv.ws, z_text)
        await until(lambda: len(engine.started) == 1, "Z's first sentence in the worker")
        await asyncio.sleep(HOLD_S)
        engine.gate.release()  # Z1 done after HOLD_S -> Z2 in the worker
        await until(lambda: len(engine.started) == 2, "Z's second sentence in the worker")
        e = await open_session(srv.ws, "Now.")
        if preempt_max:
            await until(lambda: len(engine.started) == 3, "E's sentence in the worker")
        else:
            await until(lambda: service.queued == 1, "E's sentence queued")
        engine.gate.release(2)
        frames = [await read_until(ws, is_type("flushed"), timeout=30) for ws in (z, e)]
        for ws in (z, e):
            await ws.close()
    finally:
        srv.stop()
    z1, z2 = f"{VERY_LONG} zed one.", f"{VERY_LONG} zed two."
    if preempt_max:
        assert engine.started == [z1, z2, "Now.", z2]
        assert service.preempted_jobs == 1
    else:
        assert engine.started == [z1, z2, "Now."]
        assert service.preempted_jobs == 0
    assert service.stopped_jobs == 0  # a pre-emption is not a cancel: nothing was dropped
    assert audio_by_sentence(frames[0]) == {
        0: tone_bytes(z1, speed=0.5),
        1: tone_bytes(z2, speed=0.5),
    }
    assert audio_by_sentence(frames[1]) == {0: tone_bytes("Now.", speed=0.5)}


@pytest.mark.parametrize("max_load", [1.0, 0.0])
async def test_overload_is_refused_with_busy_while_a_session_speaks(gated, max_load) -> None:
    """Capacity is measured, not configured: one job held 0.3 s for 0.04 s of audio makes
    the service sustain about 0.13 real-time streams, so a second speaking session would
    overload it. max_load 0 turns the check off (admission by session count only)."""
    service, engine, settings = gated(max_load=max_load)
    srv = ThreadedServer(settings, service).start()
    try:
        seed = asyncio.create_task(service.synthesize("Hi.", "tone_low", 1.0, "pcm", 24000))
        await until(lambda: len(engine.started) == 1, "the measured job")
        await asyncio.sleep(0.3)
        engine.gate.release()
        await seed
        assert service.capacity_streams() < 0.2
        speaker = await open_session(srv.ws, "Speaking now.")
        await until(lambda: len(engine.started) == 2, "the speaker's sentence in the worker")
        async with connect(srv.ws) as newcomer:
            if max_load:  # refused at once, while the speaker's sentence is held
                first = await read_until(newcomer, lambda f: isinstance(f, dict), timeout=10)
                engine.gate.release()
            else:  # admitted: its sentence needs the worker after the speaker's
                await send(newcomer, {"text": "Me too."})
                engine.gate.release(2)
                first = await read_until(newcomer, lambda f: isinstance(f, dict), timeout=10)
            await read_until(speaker, is_type("flushed"), timeout=10)
            if max_load:
                await asyncio.wait_for(newcomer.wait_closed(), 5)
        # The speaker is done: nobody speaks, so a new session is admitted again.
        async with connect(srv.ws) as later:
            await send(later, {"text": "Room again."})
            engine.gate.release()
            after = await read_until(later, is_type("flushed"), timeout=10)
        await speaker.close()
    finally:
        srv.stop()
    if max_load:
        (refusal,) = first
        assert isinstance(refusal, dict)
        assert refusal["type"] == "error" and refusal["code"] == "busy" and refusal["fatal"]
        assert "over capacity: 1 sessions speaking" in refusal["message"]
        assert newcomer.close_code == 1013
    else:
        opening = first[0]
        assert isinstance(opening, dict)
        assert opening["type"] == "sentence_start" and opening["text"] == "Me too."
    assert audio_by_sentence(after) == {0: tone_bytes("Room again.")}


# One clause, one model call, seconds of model time on a CPU (about 6 s of audio: long enough
# to be stopped well inside its call, and run twice more, without holding a worker for 30 s).
MODEL_SENTENCE = (
    "The committee reviewed every proposal that arrived before the deadline and chose three."
)


async def test_a_preempted_sentence_sounds_exactly_as_an_uninterrupted_one(service) -> None:
    """Real model: a sentence whose listener has minutes of audio in hand is stopped in its
    model call for a sentence due now, requeued and run again; its audio (and word timings)
    is byte-identical to the same sentence run without interruption, and so is the
    newcomer's."""
    voice = (await service.wait_ready()).default_voice
    solo = await service.synthesize(MODEL_SENTENCE, voice, 1.0, "pcm", 24000, owner="z")
    solo_now = await service.synthesize("Right now.", voice, 1.0, "pcm", 24000, owner="n")
    preempted_before, stopped_before = service.preempted_jobs, service.stopped_jobs
    far = time.perf_counter() + 600  # the listener has ten minutes of audio in hand
    z = asyncio.create_task(
        service.synthesize(MODEL_SENTENCE, voice, 1.0, "pcm", 24000, deadline=far, owner="z")
    )
    await until(lambda: service.running == 1, "the long sentence in the worker")
    await asyncio.sleep(0.3)  # past the phonemizer: inside the model call
    now = asyncio.create_task(service.synthesize("Right now.", voice, 1.0, "pcm", 24000, owner="n"))
    first, _ = await asyncio.wait({z, now}, return_when=asyncio.FIRST_COMPLETED, timeout=120)
    assert first == {now}, "the sentence due now finished first"
    again = await asyncio.wait_for(z, 120)
    assert service.preempted_jobs == preempted_before + 1
    assert service.stopped_jobs == stopped_before
    assert again.data == solo.data
    assert again.words == solo.words
    assert (await now).data == solo_now.data

"""Longer hardening soak than CI runs; prints its figures. Marked `soak`: `make test` leaves
it out, `make soak` runs it (`pytest tests/container/test_soak.py -m soak -s --soak-scale N`).

Tone-double runs (test double: deterministic tone instead of the model): protocol fuzzing,
dropped sessions with memory, 32 concurrent sessions. Real-model runs: barge-in delays and
8 concurrent sessions. --soak-scale multiplies the tone-double counts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import statistics
import threading
import time
import tracemalloc

import psutil
import pytest
from hypothesis import HealthCheck, given, settings

from devkit.tone import TONE_VOICES, ToneSynthesisService, tone_bytes
from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.barge_in import barge_in
from tests.support.load import PingSampler, SessionResult, percentile, run_concurrent_apart
from tests.support.phases import PHASES, drop_at, wait_released
from tests.support.script_runner import check, run_script
from tests.support.servers import ThreadedServer
from tests.support.session_scripts import SHORT_SENTENCES, Script, scripts

pytestmark = pytest.mark.soak
PARAGRAPHS = [
    "The first paragraph starts here. It has a second sentence, and a third one too.",
    "Paragraph two is shorter. But it still matters!",
    "Is this the third paragraph? Yes, and it ends the script. Goodbye for now.",
]


def fuzz(srv: ThreadedServer, examples: int, voices: tuple[str, ...], real: bool) -> None:
    counts = {"sessions": 0, "frames": 0}
    strategy = (
        scripts(voices, sentences=SHORT_SENTENCES, max_steps=6, max_texts=1)
        if real
        else scripts(voices)
    )

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(script=strategy)
    def prop(script: Script) -> None:
        transcript, code = asyncio.run(run_script(srv.ws, script, timeout=120 if real else 20))
        check(script, transcript, code, None if real else tone_bytes)
        wait_released(srv)
        counts["sessions"] += 1
        counts["frames"] += script.frames_sent

    started = time.perf_counter()
    prop()
    label = "real model" if real else "tone double"
    print(
        f"fuzz ({label}): {counts['sessions']} sessions, {counts['frames']} frames, "
        f"all invariants held, {time.perf_counter() - started:.0f} s"
    )


def drops(srv: ThreadedServer, sessions: int) -> None:
    cases = [(p, a) for p in PHASES for a in (False, True)]

    async def run(n: int) -> None:
        for i in range(n):
            await drop_at(srv.ws, *cases[i % len(cases)])

    asyncio.run(run(len(cases)))
    wait_released(srv)
    threads = threading.active_count()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    rss = psutil.Process().memory_info().rss
    asyncio.run(run(sessions))
    wait_released(srv)
    gc.collect()
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    print(
        f"dropped sessions (tone double): {sessions}, python heap {grown / 1024:+.1f} KiB, "
        f"RSS {(psutil.Process().memory_info().rss - rss) / 2**20:+.1f} MiB, threads "
        f"{threads} -> {threading.active_count()}"
    )


def load(srv: ThreadedServer, sessions: int, paragraphs: list[str], label: str) -> None:
    scripts_ = [
        paragraphs[n % len(paragraphs) :] + paragraphs[: n % len(paragraphs)]
        for n in range(sessions)
    ]
    with PingSampler(srv.http) as ping:
        results = run_concurrent_apart(srv.ws, scripts_, timeout=1800)
    ok = [r for r in results if isinstance(r, SessionResult)]
    sentences = sum(len(r.transcript.sentences) for r in ok)
    complete = sum(s.complete for r in ok for s in r.transcript.sentences)
    errors = sum(len(r.transcript.errors) for r in ok) + len(results) - len(ok)
    ttfa = [r.ttfa_ms for r in ok if r.ttfa_ms]
    print(
        f"load ({label}): {sessions} sessions, {complete}/{sentences} sentences complete, "
        f"errors {errors}, TTFA p50 {percentile(ttfa, 50):.0f} ms p95 "
        f"{percentile(ttfa, 95):.0f} ms, ping max {max(ping.latencies_ms):.1f} ms "
        f"({len(ping.latencies_ms)} pings, {len(ping.failures)} failed)"
    )


def barge_in_delays(srv: ThreadedServer, rounds: int) -> None:
    figures = [asyncio.run(barge_in(srv.ws)) for _ in range(rounds)]
    for key in ("cancel_during_send_ms", "cancel_during_synthesis_ms"):
        values = [f[key] for f in figures]
        print(
            f"barge-in (real model) {key}: median {statistics.median(values):.1f} ms, "
            f"max {max(values):.1f} ms over {rounds} rounds"
        )


@pytest.fixture
def soak_scale(request: pytest.FixtureRequest) -> int:
    return int(request.config.getoption("--soak-scale"))


def test_soak_tone_double(base_settings: Settings, soak_scale: int) -> None:
    # Bursts of 32 sessions on purpose: admission's load check (which counts sessions admitted
    # but not yet speaking) would refuse them; it has its own tests (test_barge_in_races.py).
    settings = dataclasses.replace(base_settings, max_load=0)
    tone = ToneSynthesisService(settings, delay_s=0.02)
    tone.load()
    srv = ThreadedServer(settings, tone).start()
    try:
        fuzz(srv, 2000 * soak_scale, TONE_VOICES, real=False)
        drops(srv, 1000 * soak_scale)
        load(srv, 32, PARAGRAPHS * 2, "tone double")
    finally:
        srv.stop()
        tone.shutdown()


def test_soak_real_model(make_server, service: SynthesisService) -> None:
    server = make_server(max_load=0)  # 8 sessions at once on purpose (see above)
    assert service.engine is not None
    fuzz(server, 30, tuple(service.engine.voice_names), real=True)
    barge_in_delays(server, 5)
    load(server, 8, ["Good morning.", "See you soon.", "Thank you."], "real model")

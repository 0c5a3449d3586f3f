"""Fuzzing the agent's POST /invocations (SSE) and /ws with hypothesis, on loopback.

The real agent app on uvicorn, FakeTtsServer (a test double emitting synthetic PCM) behind
it, the ReplayedAnswerSource at 2000 tokens/s, and real httpx / websockets clients. Payloads
come from agent_payloads.py (non-JSON, non-UTF-8, truncated, too deep, arrays and scalars,
wrong types for every field, huge and blank prompts, unpaired surrogates, unknown fields).
Invariants: every bad payload gets its specific answer (SSE: HTTP 400 for a body that is no
JSON value, else one `bad_request` event naming the field; /ws: a `bad_request` event and the
connection goes on); messages interleaved with a /ws run get `busy` / `cancelled` / nothing
as agent_ws_oracle.py defines; every valid invocation ends with `done` and all audio in
order; each example is bounded in time; /ping keeps answering; no task is left behind.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from devkit.agent_events import sse_event
from devkit.sse import SSEParser
from tests.support.agent_payloads import MAX_ERROR_CHARS, Case, cases
from tests.support.agent_ws_oracle import INTERLEAVED, Run, interleave, next_event, read_run
from tests.support.scale import examples
from tests.support.servers import AgentStack, expected_pcm

pytestmark = pytest.mark.fuzz

EXAMPLE_TIMEOUT_S = 10.0
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STATS: Counter[str] = Counter()


@pytest.fixture(scope="module")
def stack():
    # 20 ms of "synthesis" per sentence keeps a run open long enough to interleave messages.
    stack = AgentStack(synth_delay_s=0.02).start()
    yield stack
    stack.stop()


def check_complete(run: Run, stack: AgentStack) -> None:
    assert run.end == "done"
    assert run.sentences == [0, 1, 2]
    assert bytes(run.audio) == expected_pcm(stack.tts)


def ping(stack: AgentStack) -> None:
    t0 = time.perf_counter()
    response = httpx.get(stack.base + "/ping", timeout=2)
    assert response.status_code == 200
    assert response.json()["status"] in ("Healthy", "HealthyBusy")
    STATS["max_ping_ms"] = max(STATS["max_ping_ms"], int((time.perf_counter() - t0) * 1000))


async def sse_invoke(stack: AgentStack, case: Case) -> None:
    async with (
        asyncio.timeout(EXAMPLE_TIMEOUT_S),
        httpx.AsyncClient() as client,
        client.stream(
            "POST",
            stack.base + "/invocations",
            content=case.body,
            headers={"Content-Type": "application/json"},
        ) as response,
    ):
        if case.not_json:
            assert response.status_code == 400
            assert "error" in json.loads(await response.aread())
            STATS["sse_http_400"] += 1
            return
        assert response.status_code == 200
        parser, events, run = SSEParser(), [], Run()
        async for chunk in response.aiter_bytes():
            events += [sse_event(data) for data in parser.feed(chunk)]
    if not case.valid:
        assert len(events) == 1, events
        error = events[0][0]
        assert error["type"] == "error" and error["code"] == "bad_request" and error["fatal"]
        assert case.needle in error["message"], (case.needle, error)
        assert len(error["message"]) <= MAX_ERROR_CHARS  # an excerpt, never the input whole
        STATS["sse_bad_request"] += 1
        return
    for event, audio in events[:-1]:
        assert event["type"] in ("text", "sentence", "words", "audio"), event
        run.add(event, audio)
    assert events[-1][0]["type"] == "done"
    run.end = "done"
    check_complete(run, stack)
    STATS["sse_done"] += 1


def test_fuzz_sse_invocations(stack: AgentStack) -> None:
    @settings(FUZZ, max_examples=examples(35))
    @given(case=cases())
    def prop(case: Case) -> None:
        asyncio.run(sse_invoke(stack, case))
        ping(stack)

    prop()
    print(f"\nagent fuzz SSE: {dict(STATS)}")


async def ws_session(stack: AgentStack, before: list[Case], kinds: list[str]) -> None:
    async with asyncio.timeout(EXAMPLE_TIMEOUT_S), connect(stack.ws, max_size=None) as ws:
        for case in before:
            text_ok = not case.not_json or case.body.isascii()
            await ws.send(case.body.decode() if text_ok else case.body)
            if case.valid:
                check_complete(await read_run(ws, EXAMPLE_TIMEOUT_S), stack)
                STATS["ws_done"] += 1
                continue
            error, _ = await next_event(ws, EXAMPLE_TIMEOUT_S)
            assert error["type"] == "error" and error["code"] == "bad_request", error
            if case.needle:
                assert case.needle in error["message"], (case.needle, error)
                assert len(error["message"]) <= MAX_ERROR_CHARS
            STATS["ws_bad_request"] += 1
        result = await interleave(ws, json.dumps({"prompt": "hi"}), kinds, EXAMPLE_TIMEOUT_S)
        for run in result.runs:
            if run.end == "cancelled":  # a prefix of the answer, then nothing more from it
                assert expected_pcm(stack.tts).startswith(bytes(run.audio))
                STATS["ws_cancelled"] += 1
            else:
                check_complete(run, stack)
        STATS["ws_busy"] += result.busy
        STATS["ws_interleaved"] += len(kinds)
        STATS["ws_answered_after_run"] += result.answered_after_run
        # The connection still takes a valid invocation and answers it completely.
        await ws.send(json.dumps({"prompt": "last one", "mode": "batch"}))
        check_complete(await read_run(ws, EXAMPLE_TIMEOUT_S), stack)
        STATS["ws_done"] += 1


def test_fuzz_ws_messages_and_interleaving(stack: AgentStack) -> None:
    baseline = stack.live_tasks()

    @settings(FUZZ, max_examples=examples(20))
    @given(
        before=st.lists(cases(valid_weight=0), max_size=3),
        kinds=st.lists(st.sampled_from(sorted(INTERLEAVED)), max_size=4),
    )
    def prop(before: list[Case], kinds: list[str]) -> None:
        asyncio.run(ws_session(stack, before, kinds))
        ping(stack)

    prop()
    deadline = time.monotonic() + 5
    while stack.live_tasks() > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stack.live_tasks() <= baseline
    assert httpx.get(stack.base + "/ping", timeout=2).json()["status"] == "Healthy"
    print(f"\nagent fuzz /ws: {dict(STATS)}")

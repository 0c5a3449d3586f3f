"""The TTS session fails mid-answer: the caller gets one fatal `error` event with a clear code
and the stream ends, promptly, over SSE and /ws, and nothing is left running.

FakeTtsServer (a test double emitting synthetic PCM) misbehaves after two audio frames: it
drops the TCP connection, stalls with the socket open, sends a text frame that is not JSON or
a malformed sentence_start, or (audio_first) sends audio before any sentence_start. The
agent's TTS idle timeout is 0.5 s here, so a stall ends within about that after `close`.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time

import pytest

from devkit.agent_client import InvocationResult, invoke_http, invoke_ws
from devkit.loopback import serve
from tests.support.fake_tts import FakeTtsServer
from tests.support.servers import leftover_tasks_and_threads, make_agent

IDLE_S = 0.5
EXPECTED = {
    "drop": "tts_disconnected",
    "stall": "tts_timeout",
    "garbage": "tts_protocol",
    "bad_control": "tts_protocol",
    "audio_first": "tts_protocol",
}
# A stall may be noticed only IDLE_S after the last event; everything else at once.
BOUND_S = {"stall": IDLE_S + 1.5}
DEFAULT_BOUND_S = 1.5
DELAYS_MS: dict[str, list[float]] = {}


@pytest.fixture(scope="module", autouse=True)
def report_delays():
    """After the module: the measured time from each fault to the caller's error (-s shows it)."""
    yield
    for fault, delays in sorted(DELAYS_MS.items()):
        print(f"\n{fault}: max {max(delays):.0f} ms, median {statistics.median(delays):.0f} ms")


LONG = "Hi. " + "More words keep coming. " * 20  # about 1 s of text at 100 tokens/s


async def invoke(base: str, transport: str) -> tuple[InvocationResult, float]:
    """The result and perf_counter() when its last event arrived."""
    if transport == "sse":
        result = await invoke_http(base, {"prompt": "hi"}, timeout_s=10)
    else:
        result = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "hi"}, 10)
    return result, time.perf_counter()


@pytest.mark.parametrize("transport", ["sse", "ws"])
@pytest.mark.parametrize("fault", sorted(EXPECTED))
async def test_tts_failure_mid_answer_is_an_error_event(fault: str, transport: str) -> None:
    async with (
        FakeTtsServer(fault=fault, fault_after_frames=2) as tts,
        serve(make_agent(tts.url, tts_idle_timeout_s=IDLE_S)) as base,
    ):
        await invoke(base, transport)  # warm: the server's thread pool exists from here on
        before, threads_before = asyncio.all_tasks(), set(threading.enumerate())
        result, ended = await asyncio.wait_for(invoke(base, transport), 10)
        session = tts.sessions[-1]
        await asyncio.wait_for(session.closed.wait(), 5)
        leaked = await leftover_tasks_and_threads(before, threads_before, within_s=2.0)
    assert not leaked, leaked
    assert result.order[-1] == "error" and "done" not in result.order, result.order
    error = result.errors[-1]
    assert error["code"] == EXPECTED[fault] and error["fatal"] is True, error
    assert session.faulted_at is not None
    delay = ended - session.faulted_at
    assert delay < BOUND_S.get(fault, DEFAULT_BOUND_S), f"{fault}: error after {delay:.2f} s"
    DELAYS_MS.setdefault(fault, []).append(delay * 1000)
    if fault != "audio_first":
        assert result.audio_bytes == 2 * tts.frame_bytes  # what came before the fault, intact
    if fault != "drop":  # the agent told the TTS to stop, then hung up (session.closed)
        assert "cancel" in session.types(), (fault, session.types())


async def test_stall_while_the_llm_is_still_talking_ends_after_close_not_llm_timeout() -> None:
    """Regression: a wait for the TTS that began before `close` kept the LLM idle timeout
    (120 s) even after `close` went out, so a TTS stalling early hung the caller."""
    async with FakeTtsServer(fault="stall", fault_after_frames=1) as tts:
        agent = make_agent(tts.url, answer=LONG, rate=100, tts_idle_timeout_s=IDLE_S)
        async with serve(agent) as base:
            t0 = time.perf_counter()
            result = await asyncio.wait_for(invoke_http(base, {"prompt": "hi"}), 10)
            took = time.perf_counter() - t0
    assert result.errors[-1]["code"] == "tts_timeout"
    text_s = len(LONG.split()) / 100
    assert took < text_s + IDLE_S + 1.5, took

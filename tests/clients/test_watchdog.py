"""kokoro_stream.watchdog: which asks are owed an answer (the protocol's rules), and a watched
session over the real WebSocket transport ending with `tts_timeout` when a server stalls
while it owes one, never while it owes nothing.

The stalling server is tests/support/fake_tts.py's FakeTtsServer (a double of the Kokoro
server on a real loopback socket): the real server cannot be made to stall on cue.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from kokoro_stream import (
    Cancelled,
    Flushed,
    SessionEnd,
    SessionOptions,
    TtsAudio,
    TtsEvent,
    TtsFailure,
)
from kokoro_stream.watchdog import OwedAnswers, WatchedSession
from kokoro_stream.websocket import WebSocketTts

from tests.support.fake_tts import FakeTtsServer

FLUSHED, CANCELLED, END = Flushed(), Cancelled(dropped=0), SessionEnd(sentences=0)


def owed_after(*steps: str | TtsEvent) -> bool:
    """Whether anything is owed after sending the named asks and hearing the events."""
    owed = OwedAnswers()
    for step in steps:
        if isinstance(step, str):
            owed.sent(step)
        else:
            owed.heard(step)
    return bool(owed)


@pytest.mark.parametrize(
    ("steps", "owed"),
    [
        (("text", "start"), False),  # text and settings ask for no answer
        (("flush",), True),
        (("flush", FLUSHED), False),
        (("flush", "flush", FLUSHED), True),
        (("flush", "cancel", CANCELLED), False),  # the cancel answers the flush before it
        (("cancel", "flush", CANCELLED), True),  # not one sent after it
        (("cancel", "flush", CANCELLED, FLUSHED), False),
        (("flush", FLUSHED, FLUSHED), False),  # an unasked answer owes nothing back
        (("flush", "close", END), False),  # session_end answers everything
        (("close",), True),
    ],
)
def test_what_is_owed_follows_the_protocol(steps: tuple[str | TtsEvent, ...], owed: bool) -> None:
    assert owed_after(*steps) is owed


def test_a_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="above 0"):
        WatchedSession(object(), 0)  # type: ignore[arg-type]


async def collect(session: WatchedSession, bound_s: float = 10.0) -> list[TtsEvent]:
    async with asyncio.timeout(bound_s):  # the test's own bound, not the watchdog's
        return [event async for event in session.events()]


async def test_a_server_that_stalls_while_it_owes_a_flush_ends_with_tts_timeout() -> None:
    async with FakeTtsServer(fault="stall", fault_after_frames=1) as fake:
        session = WatchedSession(await WebSocketTts(fake.url).open_session(SessionOptions()), 0.4)
        await session.send_text("Hello there.")
        await session.flush()
        began = time.perf_counter()
        events = await collect(session)
        waited = time.perf_counter() - began
        await session.aclose()
    failure = events[-1]
    assert isinstance(failure, TtsFailure) and failure.code == "tts_timeout"
    assert "no answer for 0.4 s" in failure.message
    assert 0.4 <= waited < 5.0
    assert sum(isinstance(e, TtsAudio) for e in events) == 1  # the frame before the stall


async def test_quiet_while_nothing_is_owed_is_never_cut() -> None:
    async with FakeTtsServer() as fake:
        session = WatchedSession(await WebSocketTts(fake.url).open_session(SessionOptions()), 0.2)
        await session.send_text("An unfinished")
        await asyncio.sleep(1.0)  # five timeouts with nothing asked: the LLM is thinking
        await session.send_text(" thought.")
        await session.close()
        events = await collect(session)
        await session.aclose()
    assert not any(isinstance(e, TtsFailure) for e in events)
    assert isinstance(events[-1], SessionEnd)

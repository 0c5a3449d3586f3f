"""One caller of the load ladder: an answer streamed like an LLM writes it, heard in real time.

The caller opens a session through a `kokoro_stream` transport (the container's WebSocket or
SageMaker's bidirectional stream: the agent's own clients), sends the answer as LLM-sized
deltas at a token rate and reads until `session_end`, stamping every audio frame with its
arrival time. From those stamps `playback` replays what the listener hears. When it closes:
- `call` (HOLD_CALL): after `flush` and `flushed`, once it has heard its whole answer, as a
  per-call stream does (the Pipecat service keeps one session for the call): a stream is
  open for as long as its caller listens, so N callers hold N streams;
- `answer` (HOLD_ANSWER): `close` right after the text, as the voice agent's and the LiveKit
  plugin's session per answer does: the stream ends when its audio has been sent, before
  the caller has heard it.

Every wait is bounded: the caller gives up at `deadline` (a `perf_counter` time) and reports
itself timed out, with what it had received by then.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kokoro_stream import events as tts_events
from kokoro_stream.base import TtsSession, TtsTransport

from bench.audible import first_sound_s
from devkit.text import deltas_at

OK, REFUSED, FAILED, TIMED_OUT = "ok", "refused", "failed", "timed out"
HOLD_CALL, HOLD_ANSWER = "call", "answer"
BUSY = "busy"
TRY_AGAIN_LATER = "1013"  # WebSocket close code of a refused session
HEAD_AUDIO_S = 10.0  # audio kept per caller to find its first audible sample
CLOSE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Heard:
    stalls: int
    stall_s: float
    audio_s: float


def playback(arrivals: Sequence[tuple[float, float]]) -> Heard:
    """Replay audio frames, (arrival time s, audio s) in order of arrival, as a listener
    hears them: playback starts with the first frame and runs in real time; a **stall** is
    the buffered audio running out before the next frame arrives, and lasts until it does."""
    if not arrivals:
        return Heard(0, 0.0, 0.0)
    stalls, stall_s = 0, 0.0
    plays_until = arrivals[0][0]
    for arrived, seconds in arrivals:
        if arrived > plays_until:
            stalls += 1
            stall_s += arrived - plays_until
            plays_until = arrived
        plays_until += seconds
    return Heard(stalls, stall_s, sum(s for _, s in arrivals))


@dataclass
class Caller:
    """What one caller saw. Times: `*_at_s` on the level's clock (from its start); the rest
    from the caller's first text sent (its time to first audio starts there)."""

    caller: int
    offset_s: float  # when it arrived, on the level's clock
    outcome: str = OK
    error: str | None = None
    opened_at_s: float | None = None
    ended_at_s: float | None = None
    first_byte_s: float | None = None
    first_sound_s: float | None = None
    stalls: int = 0
    stall_s: float = 0.0
    audio_s: float = 0.0
    audio_bytes: int = 0  # received
    announced_bytes: int = 0  # the sum of its synthesis_complete audio_bytes
    sentences: int = 0
    synth_ms: list[float] = field(default_factory=list)
    failure: BaseException | tts_events.TtsFailure | None = field(default=None, repr=False)

    def fail(
        self, outcome: str, error: str, failure: BaseException | tts_events.TtsFailure | None
    ) -> None:
        if self.outcome == OK:  # the first cause wins (a refusal ends in a lost connection)
            self.outcome, self.error, self.failure = outcome, error, failure

    def record(self) -> dict[str, Any]:
        """The caller as it goes into the result JSON."""
        fields = dict(vars(self))
        fields.pop("failure")
        return fields


@dataclass
class _Stamps:
    """The caller's clock (zero at its first text sent) and its audio frames."""

    sample_rate: int
    t0: float = field(default_factory=time.perf_counter)
    started: bool = False
    frames: list[tuple[float, float]] = field(default_factory=list)
    head: bytearray = field(default_factory=bytearray)
    plays_until: float = 0.0  # when the listener will have heard everything received so far
    flushed: asyncio.Event = field(default_factory=asyncio.Event)

    def start(self) -> None:
        if not self.started:
            self.t0, self.started = time.perf_counter(), True

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def audio(self, data: bytes) -> None:
        now, seconds = self.now(), len(data) / (2 * self.sample_rate)  # s16le mono
        self.frames.append((now, seconds))
        self.plays_until = max(self.plays_until, now) + seconds
        if len(self.head) < HEAD_AUDIO_S * 2 * self.sample_rate:
            self.head.extend(data)


def is_refusal(text: str) -> bool:
    return text.startswith(BUSY) or TRY_AGAIN_LATER in text


async def run_caller(
    transport: TtsTransport,
    deltas: Sequence[str],
    *,
    caller: int,
    offset_s: float,
    level_t0: float,
    deadline: float,
    tokens_per_s: float,
    voice: str | None,
    sample_rate: int,
    hold: str = HOLD_CALL,
) -> Caller:
    """Arrive at `offset_s`, speak one answer, report what was heard (never raises, except
    on cancellation)."""
    result = Caller(caller, offset_s)
    stamps = _Stamps(sample_rate)
    session: TtsSession | None = None
    try:
        async with asyncio.timeout_at(_loop_time(deadline)):
            await asyncio.sleep(max(0.0, level_t0 + offset_s - time.perf_counter()))
            options = tts_events.SessionOptions(
                voice=voice, audio_format="pcm", sample_rate=sample_rate
            )
            session = await transport.open_session(options)
            result.opened_at_s = time.perf_counter() - level_t0
            await _converse(session, deltas, tokens_per_s, hold, stamps, result)
    except TimeoutError as exc:
        result.fail(TIMED_OUT, "no session_end before the level's time limit", exc)
    except Exception as exc:  # the transport could not open or carry the session
        text = f"{type(exc).__name__}: {exc}"
        result.fail(REFUSED if is_refusal(str(exc)) else FAILED, text, exc)
    finally:
        if session is not None:  # closed outside the deadline: a cut-off session is closed too
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.aclose(), CLOSE_TIMEOUT_S)
    result.ended_at_s = time.perf_counter() - level_t0
    _hear(result, stamps)
    return result


def _loop_time(deadline: float) -> float:
    """A perf_counter deadline on the running loop's clock."""
    return asyncio.get_running_loop().time() + (deadline - time.perf_counter())


async def _converse(
    session: TtsSession,
    deltas: Sequence[str],
    tokens_per_s: float,
    hold: str,
    stamps: _Stamps,
    result: Caller,
) -> None:
    async def send() -> None:
        async for delta in deltas_at(deltas, tokens_per_s):
            stamps.start()
            await session.send_text(delta)
        if hold == HOLD_CALL:  # keep the stream while the caller listens, then close it
            await session.flush()
            await stamps.flushed.wait()
            await asyncio.sleep(max(0.0, stamps.plays_until - stamps.now()))
        await session.close()

    sender = asyncio.create_task(send())
    try:
        await _receive(session, stamps, result)
    finally:
        if not sender.done():
            sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender
    if result.outcome == OK and not sender.cancelled() and sender.exception() is not None:
        exc = sender.exception()
        result.fail(FAILED, f"sending failed: {exc}", exc)


async def _receive(session: TtsSession, stamps: _Stamps, result: Caller) -> None:
    async for event in session.events():
        if isinstance(event, tts_events.TtsAudio):
            stamps.audio(event.data)
            result.audio_bytes += len(event.data)
        elif isinstance(event, tts_events.TtsFailure):
            text = f"{event.code}: {event.message}"
            result.fail(REFUSED if is_refusal(event.message) else FAILED, text, event)
            return
        elif isinstance(event, tts_events.Flushed):
            stamps.flushed.set()
        elif _control(event, result):
            return
    result.fail(FAILED, "the stream ended before session_end", None)


def _control(event: object, result: Caller) -> bool:
    """Book one control message; True when the session is over."""
    if isinstance(event, tts_events.SessionEnd):
        return True
    if isinstance(event, tts_events.SentenceStart):
        result.sentences += 1
    elif isinstance(event, tts_events.SynthesisComplete):
        result.announced_bytes += event.audio_bytes
        if event.synth_ms is not None:
            result.synth_ms.append(float(event.synth_ms))
    elif isinstance(event, tts_events.ServerError):
        failure = tts_events.TtsFailure(event.code, event.message)
        text = f"{event.code}: {event.message}"
        result.fail(REFUSED if event.code == BUSY else FAILED, text, failure)
        # An error that does not say whether it is fatal ends the caller's session.
        return bool(event.raw.get("fatal", True)) or event.code == BUSY
    return False


def _hear(result: Caller, stamps: _Stamps) -> None:
    heard = playback(stamps.frames)
    result.stalls, result.stall_s, result.audio_s = heard.stalls, heard.stall_s, heard.audio_s
    if stamps.frames:
        result.first_byte_s = stamps.frames[0][0]
        result.first_sound_s = first_sound_s(
            result.first_byte_s, bytes(stamps.head), stamps.sample_rate
        )

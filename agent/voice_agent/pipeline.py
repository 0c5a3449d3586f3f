"""One invocation: LLM text -> one bidirectional TTS session -> caller events.

Two tasks feed one queue, so the caller sees text and audio in true arrival order:
- the text pump reads LLM deltas, emits `text` events and (stream mode) forwards each delta,
  as written, to the TTS session at once (the server reads its markdown and emoji); batch
  mode sends the whole answer when it is complete;
- the audio pump relays `sentence`, `words` and `audio` events as the TTS session produces
  them, each sentence placed on the answer's clock (`offset_ms`: the audio of the sentences
  before it, played back to back).
The text source sees the conversation so far (`History`); remembering the answer is the
caller's part (turns.py).
If the caller goes away or interrupts (the generator is closed or cancelled) both tasks are
cancelled and the TTS session gets `cancel` at once: the server reads it even after `close`
and stops the sentence in its model. Only then does the generator end (so `interrupted` can
go out); the connection is closed in the background (`drain` waits for those closes).
A transient `busy` from the TTS is waited out briefly (admission.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from kokoro_stream import events as tts_events
from kokoro_stream.base import TtsSession, TtsTransport
from kokoro_stream.messages import DEFAULT_SAMPLE_RATE

from .admission import AdmittedSession, refused
from .caller_errors import tts_failure_message
from .conversation import NO_HISTORY, History
from .events import (
    AgentEvent,
    AudioEvent,
    done_event,
    error_event,
    sentence_event,
    text_event,
    words_event,
)
from .llm import TextSource
from .payload import Invocation, tts_sample_rate

log = logging.getLogger("voice_agent.pipeline")

# TTS errors after which no sentence of this invocation can succeed: end it at once.
FATAL_TTS_CODES = frozenset({"unknown_voice", "bad_parameter"})
_TEXT_DONE = object()
_AUDIO_DONE = object()


@dataclass(frozen=True)
class _Fatal:
    code: str
    message: str


@dataclass
class Metrics:
    mode: str
    text_source: str
    tts_transport: str
    start: float = field(default_factory=time.perf_counter)
    first_text: float | None = None
    first_audio: float | None = None
    audio_bytes: int = 0
    audio_s_reported: float = 0.0
    tts_reported_bytes: int = 0
    sentences: int = 0
    sample_rate: int = DEFAULT_SAMPLE_RATE
    format: str = "pcm"
    history_turns: int = 0  # earlier turns the text source was given

    def _ms(self, t: float | None) -> float | None:
        return None if t is None else round((t - self.start) * 1000, 1)

    def as_dict(self) -> dict[str, Any]:
        audio_s = self.audio_s_reported
        if not audio_s and self.format == "pcm":
            audio_s = self.audio_bytes / (2 * self.sample_rate)
        return {
            "mode": self.mode,
            "text_source": self.text_source,
            "tts_transport": self.tts_transport,
            "time_to_first_text_ms": self._ms(self.first_text),
            "time_to_first_audio_ms": self._ms(self.first_audio),
            "total_ms": self._ms(time.perf_counter()),
            "audio_seconds": round(audio_s, 3),
            "audio_bytes": self.audio_bytes,
            "tts_reported_audio_bytes": self.tts_reported_bytes,
            "sentences": self.sentences,
            "history_turns": self.history_turns,
        }


@dataclass
class _Sentences:
    """Per sentence of one answer: its audio format and where it starts on the answer's clock."""

    formats: dict[int, tuple[str, int]] = field(default_factory=dict)
    offsets: dict[int, float] = field(default_factory=dict)
    clock_ms: float = 0.0  # audio of the sentences completed so far

    def start(self, index: int, fmt: str, sample_rate: int) -> float:
        self.formats[index] = (fmt, sample_rate)
        self.offsets[index] = self.clock_ms
        return self.clock_ms

    def complete(self, duration_s: float) -> None:
        # The server's duration (ms precision) is the sentence's audio whatever its format.
        self.clock_ms = round(self.clock_ms + 1000.0 * duration_s, 3)


@dataclass(eq=False)
class VoicePipeline:
    text_source: TextSource
    tts: TtsTransport
    sample_rate: int = DEFAULT_SAMPLE_RATE
    tts_idle_timeout_s: float = 30.0
    llm_idle_timeout_s: float = 120.0
    connect_timeout_s: float = 15.0
    busy_wait_s: float = 2.0  # at most this long waiting out a TTS `busy`
    # The TTS connections still closing after their runs.
    _closing: set[asyncio.Task[None]] = field(default_factory=set, init=False, repr=False)

    async def drain(self) -> None:
        """Wait until every finished run's TTS connection is closed (shutdown, tests)."""
        while self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    async def run(
        self, inv: Invocation, history: History = NO_HISTORY
    ) -> AsyncGenerator[AgentEvent, None]:
        rate = tts_sample_rate(inv.format, self.sample_rate)
        metrics = Metrics(
            mode=inv.mode,
            text_source=self.text_source.describe(),
            tts_transport=self.tts.name,
            sample_rate=rate,
            format=inv.format,
            history_turns=len(history.turns),
        )
        # Word timestamps always: the conversation remembers what was heard by them.
        options = tts_events.SessionOptions(
            inv.voice, inv.format, rate, word_timestamps=True, speed=inv.speed
        )
        try:
            session = await AdmittedSession.open(
                lambda: asyncio.wait_for(self.tts.open_session(options), self.connect_timeout_s),
                self.busy_wait_s,
            )
        except Exception as exc:
            code = "tts_busy" if refused(exc) else "tts_unavailable"  # busy past the budget
            yield error_event(code, tts_failure_message("cannot open a TTS session", exc))
            return
        events = self._answer(inv, history, session, metrics)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    async def _answer(
        self, inv: Invocation, history: History, session: TtsSession, metrics: Metrics
    ) -> AsyncGenerator[AgentEvent, None]:
        """The two pumps' events in arrival order, then `done`; stops both however it ends."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        close_sent = asyncio.Event()
        relay = _AudioRelay(inv, queue, metrics)
        tasks = [
            asyncio.create_task(self._pump_text(inv, history, session, queue, metrics, close_sent)),
            asyncio.create_task(self._pump_audio(session, relay, close_sent)),
        ]
        completed = False
        try:
            running = len(tasks)
            while running:
                item = await queue.get()
                if item is _TEXT_DONE or item is _AUDIO_DONE:
                    running -= 1
                elif isinstance(item, _Fatal):
                    yield error_event(item.code, item.message)
                    return
                else:
                    yield item
            completed = True
            yield done_event(metrics.as_dict())
        finally:
            # Shielded: under anyio (Starlette) a cancelled scope would cancel every await
            # here; the clean-up task runs to the end either way.
            stop = asyncio.ensure_future(_stop(session, tasks, send_cancel=not completed))
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(stop)
            closing = asyncio.ensure_future(_close(stop, session))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)

    async def _pump_text(
        self,
        inv: Invocation,
        history: History,
        session: TtsSession,
        queue: asyncio.Queue[Any],
        metrics: Metrics,
        close_sent: asyncio.Event,
    ) -> None:
        # Deltas go to the TTS session as written: the server's front end reads markdown,
        # emoji and pronunciation markup (docs/speech.md), one implementation for every client.
        held: list[str] = []
        try:
            try:
                async for delta in self.text_source.stream(inv.prompt, history):
                    if metrics.first_text is None:
                        metrics.first_text = time.perf_counter()
                    queue.put_nowait(text_event(delta))
                    if inv.mode == "batch":
                        held.append(delta)
                    elif delta:
                        await _send_text(session, delta)
            except _SendError:
                raise
            except Exception as exc:
                queue.put_nowait(_Fatal("llm_error", f"text source failed: {exc!r}"))
                return
            rest = "".join(held)
            if rest.strip():
                await session.send_text(rest)
            await session.close()
            close_sent.set()
        except Exception as exc:  # CancelledError is a BaseException: it passes through
            queue.put_nowait(_Fatal("tts_send_failed", f"cannot send to the TTS session: {exc!r}"))
        finally:
            queue.put_nowait(_TEXT_DONE)

    async def _pump_audio(
        self, session: TtsSession, relay: _AudioRelay, close_sent: asyncio.Event
    ) -> None:
        """Relay the TTS session's events until it is over (or fails, or goes quiet)."""
        events = _PacedEvents(
            session.events(), close_sent, self.tts_idle_timeout_s, self.llm_idle_timeout_s
        )
        try:
            while True:
                event = await events.next()
                if isinstance(event, _Fatal):
                    relay.queue.put_nowait(event)
                    return
                if relay.on_event(event):
                    return
        finally:
            await events.aclose()
            relay.queue.put_nowait(_AUDIO_DONE)


@dataclass(eq=False)
class _PacedEvents:
    """The TTS session's next event, within the timeout of the moment: before `close` the
    TTS may idle while the LLM thinks (the LLM's timeout); after it, it may not (the TTS's).
    A wait that began before `close` restarts with the TTS timeout when `close` goes out, so
    a TTS that stalls while the LLM still talks is not waited on for the (long) LLM timeout."""

    events: AsyncGenerator[tts_events.TtsEvent, None]
    close_sent: asyncio.Event
    tts_timeout_s: float
    llm_timeout_s: float
    _closing: asyncio.Future[bool] = field(init=False)
    _pending: asyncio.Future[tts_events.TtsEvent] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._closing = asyncio.ensure_future(self.close_sent.wait())

    async def next(self) -> tts_events.TtsEvent | _Fatal:
        while True:
            closed = self.close_sent.is_set()
            timeout = self.tts_timeout_s if closed else self.llm_timeout_s
            if self._pending is None:
                self._pending = asyncio.ensure_future(anext(self.events))
            pending = self._pending
            watch: set[asyncio.Future[Any]] = {pending} if closed else {pending, self._closing}
            await asyncio.wait(watch, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if pending.done():
                break
            if closed or not self.close_sent.is_set():
                return _Fatal("tts_timeout", f"no TTS event for {timeout:g} s")
        self._pending = None
        try:
            return pending.result()
        except StopAsyncIteration:
            return _Fatal("tts_disconnected", "TTS stream ended early")

    async def aclose(self) -> None:
        for waiter in (self._closing, self._pending):
            if waiter is not None and not waiter.done():
                waiter.cancel()
                with contextlib.suppress(BaseException):
                    await waiter
        with contextlib.suppress(Exception):
            await self.events.aclose()


class _AudioRelay:
    """One answer's TTS events as caller events, each sentence on the answer's clock."""

    def __init__(self, inv: Invocation, queue: asyncio.Queue[Any], metrics: Metrics) -> None:
        self.inv = inv
        self.queue = queue
        self.metrics = metrics
        self.sentences = _Sentences()

    def on_event(self, event: tts_events.TtsEvent) -> bool:
        """Pass one event on; True when the session is over (ended, failed or fatal)."""
        match event:
            case tts_events.TtsAudio():
                self._audio(event)
            case tts_events.SentenceStart():
                self._sentence_start(event)
            case tts_events.TtsWords():
                timed = [
                    {"text": w.text, "start_ms": w.start_ms, "end_ms": w.end_ms}
                    for w in event.words
                ]
                offset = self.sentences.offsets.get(event.index, self.sentences.clock_ms)
                self.queue.put_nowait(words_event(event.index, offset, timed))
            case tts_events.SynthesisComplete():
                self.sentences.complete(event.duration_s)
                self.metrics.audio_s_reported += event.duration_s
                self.metrics.tts_reported_bytes += event.audio_bytes
            case tts_events.ServerError():
                return self._server_error(event)
            case tts_events.TtsFailure():
                self.queue.put_nowait(_Fatal(event.code, event.message))
                return True
            case tts_events.SessionEnd():
                return True
        return False  # flushed, cancelled, a type this agent does not know

    def _audio(self, event: tts_events.TtsAudio) -> None:
        if self.metrics.first_audio is None:
            self.metrics.first_audio = time.perf_counter()
        self.metrics.audio_bytes += len(event.data)
        fmt, rate = self.sentences.formats.get(
            event.index, (self.inv.format, self.metrics.sample_rate)
        )
        self.queue.put_nowait(AudioEvent(event.index, fmt, rate, event.data))

    def _sentence_start(self, event: tts_events.SentenceStart) -> None:
        offset = self.sentences.start(
            event.index,
            event.format or self.inv.format,
            event.sample_rate or self.metrics.sample_rate,
        )
        self.metrics.sentences += 1
        self.queue.put_nowait(sentence_event(event.index, event.text, offset))

    def _server_error(self, error: tts_events.ServerError) -> bool:
        code = f"tts_{error.code}"
        if error.fatal or error.code in FATAL_TTS_CODES:
            self.queue.put_nowait(_Fatal(code, error.message))
            return True
        # A sentence the TTS could not speak: named (index, text) to the caller and logged,
        # never skipped in silence.
        log.warning(
            "tts did not speak sentence %s (%s: %s): %r",
            error.index,
            code,
            error.message,
            error.text,
        )
        self.queue.put_nowait(
            error_event(code, error.message, fatal=False, index=error.index, text=error.text)
        )
        return False


class _SendError(Exception):
    """Sending to the TTS session failed (told apart from a failing text source)."""


async def _send_text(session: TtsSession, text: str) -> None:
    try:
        await session.send_text(text)
    except Exception as exc:
        raise _SendError(repr(exc)) from exc


async def _stop(session: TtsSession, tasks: list[asyncio.Task[None]], send_cancel: bool) -> None:
    """Tell the LLM and the TTS to stop: what must happen before the run may end."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if send_cancel:
        # Barge-in semantics: the server drops queued text and stops the sentence in progress
        # (also after `close`: it reads control frames until session_end).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.cancel(), 2.0)


async def _close(stop: asyncio.Future[None], session: TtsSession) -> None:
    """Close the TTS connection once stopped; nobody waits for this but `drain`."""
    with contextlib.suppress(BaseException):
        await stop
    with contextlib.suppress(Exception):
        await asyncio.wait_for(session.aclose(), 5.0)

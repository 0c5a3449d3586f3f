"""Check 2: one bidirectional session with two sentences and a cancel.

Driven through the agent's own TTS transport API (`open_session`, protocol v1), so in AWS it
exercises exactly what the agent uses: `SageMakerBidiTts`, the HTTP/2 SDK, port, credentials.
The session: two sentences and `flush` (both must come back with audio, then `flushed`); a
third sentence and `cancel` at once (`cancelled` must follow, and no audio of the dropped
sentence after it); `close` (`session_end`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field

from kokoro_stream import events as tts_events
from kokoro_stream.base import TtsTransport

from smoke.diagnosis import (
    Call,
    Diagnosis,
    container_error,
    from_event,
    from_exception,
    no_audio,
    no_response,
    protocol,
    stream_not_opened,
)
from smoke.result import CheckResult, elapsed_ms, failed

NAME = "bidi-stream"
SENTENCES = "This is the smoke check. A second sentence follows."
# The third sentence is complete (text follows it), so it is queued when `cancel` arrives.
CANCELLED_TEXT = "This third sentence is cancelled. So is the rest"
SPOKEN_SENTENCES = 2
AUDIO_FORMAT = "pcm"
SAMPLE_RATE = 24000
CLOSE_TIMEOUT_S = 2.0


async def close_within(closing: Awaitable[None], timeout_s: float) -> None:
    """Tear down without letting a stuck close hide the diagnosis: the SDK's input-stream
    close waits forever on a connection that never completed (seen with a silent port)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(closing, timeout_s)


def stream_call(endpoint: str) -> Call:
    return Call(
        "InvokeEndpointWithBidirectionalStream",
        "sagemaker:InvokeEndpointWithBidirectionalStream",
        f"endpoint {endpoint}",
        stream=True,
    )


class StreamProblem(Exception):
    """The check cannot pass; carries its diagnosis."""

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__(diagnosis.summary)
        self.diagnosis = diagnosis


@dataclass
class SessionTally:
    """What came back so far, with times from the start of the check."""

    start: float
    controls: list[str] = field(default_factory=list)
    audio: dict[int, int] = field(default_factory=dict)  # bytes per sentence index
    first_audio_ms: float | None = None
    cancelled: tts_events.Cancelled | None = None
    late_audio: int = 0  # audio bytes of a dropped sentence after `cancelled`
    session_end: tts_events.SessionEnd | None = None
    synth_ms: float = 0.0  # summed `synthesis_complete` fields: the server's own timing
    synth_audio_s: float = 0.0

    @property
    def real_time_factor(self) -> float | None:
        return self.synth_ms / 1000 / self.synth_audio_s if self.synth_audio_s else None

    @property
    def anything(self) -> bool:
        return bool(self.controls or self.audio)

    def seen(self) -> str:
        return ", ".join(self.controls) or "nothing"

    def add(self, event: tts_events.TtsEvent, call: Call) -> str:
        """Records one event; returns its type ('audio' for audio)."""
        if isinstance(event, tts_events.TtsFailure):
            raise StreamProblem(from_event(event.code, event.message, call))
        if isinstance(event, tts_events.TtsAudio):
            if self.first_audio_ms is None:
                self.first_audio_ms = elapsed_ms(self.start)
            self.audio[event.index] = self.audio.get(event.index, 0) + len(event.data)
            if self.cancelled is not None and event.index >= SPOKEN_SENTENCES:
                self.late_audio += len(event.data)
            return "audio"
        self.controls.append(event.type)
        if isinstance(event, tts_events.ServerError):
            raise StreamProblem(container_error(call, event.code, event.message))
        if isinstance(event, tts_events.Cancelled):
            self.cancelled = event
        elif isinstance(event, tts_events.SessionEnd):
            self.session_end = event
        elif isinstance(event, tts_events.SynthesisComplete) and event.synth_ms is not None:
            self.synth_ms += event.synth_ms
            self.synth_audio_s += event.duration_s
        return str(event.type)


@dataclass
class SessionReader:
    """Reads events until a given control message, each wait bounded by `timeout_s`."""

    events: AsyncIterator[tts_events.TtsEvent]
    tally: SessionTally
    call: Call
    timeout_s: float

    async def until(self, kind: str) -> None:
        while True:
            try:
                event = await asyncio.wait_for(anext(self.events), self.timeout_s)
            except TimeoutError as exc:
                raise StreamProblem(self._silence(kind)) from exc
            except StopAsyncIteration as exc:
                detail = f"the stream ended before `{kind}` (after: {self.tally.seen()})"
                raise StreamProblem(protocol(self.call, detail)) from exc
            if self.tally.add(event, self.call) == kind:
                return

    def _silence(self, kind: str) -> Diagnosis:
        if not self.tally.anything:
            return no_response(self.call, self.timeout_s)
        if not self.tally.audio:
            return no_audio(self.call, self.tally.seen(), self.timeout_s)
        detail = f"no `{kind}` within {self.timeout_s:g} s (after: {self.tally.seen()})"
        return protocol(self.call, detail)


async def run_stream_check(
    transport: TtsTransport, endpoint: str, voice: str | None, timeout_s: float
) -> CheckResult:
    """One session through `transport` (SageMakerBidiTts in AWS); always closes it.

    A failure inside the HTTP/2 SDK's own request task reaches this check the way it reaches
    the agent: `open_session` raises it (SdkCallError, the cause attached), or the session's
    events end with a TtsFailure naming it."""
    call = stream_call(endpoint)
    tally = SessionTally(start=time.perf_counter())
    try:
        await _converse(transport, call, tally, voice, timeout_s)
    except StreamProblem as exc:
        return failed(NAME, exc.diagnosis)
    except Exception as exc:
        return failed(NAME, from_exception(exc, call, timeout_s))
    finally:
        await close_within(transport.aclose(), CLOSE_TIMEOUT_S)
    return _result(tally, call)


async def _converse(
    transport: TtsTransport,
    call: Call,
    tally: SessionTally,
    voice: str | None,
    timeout_s: float,
) -> None:
    try:
        session = await asyncio.wait_for(
            transport.open_session(tts_events.SessionOptions(voice, AUDIO_FORMAT, SAMPLE_RATE)),
            timeout_s,
        )
    except TimeoutError as exc:
        raise StreamProblem(stream_not_opened(call, timeout_s)) from exc
    try:
        reader = SessionReader(session.events(), tally, call, timeout_s)
        await session.send_text(SENTENCES)
        await session.flush()
        await reader.until("flushed")
        await session.send_text(CANCELLED_TEXT)
        await session.cancel()
        await reader.until("cancelled")
        await session.close()
        await reader.until("session_end")
    finally:
        await close_within(session.aclose(), CLOSE_TIMEOUT_S)


def _result(tally: SessionTally, call: Call) -> CheckResult:
    spoken = [i for i in range(SPOKEN_SENTENCES) if tally.audio.get(i)]
    if not tally.audio:
        return failed(NAME, no_audio(call, tally.seen()))
    if len(spoken) < SPOKEN_SENTENCES:
        detail = f"audio for sentences {sorted(tally.audio)}, expected 0 and 1"
        return failed(NAME, protocol(call, detail))
    if tally.late_audio:
        detail = f"{tally.late_audio} audio bytes of a cancelled sentence after `cancelled`"
        return failed(NAME, protocol(call, detail))
    dropped = tally.cancelled.dropped if tally.cancelled else None
    audio_bytes = sum(tally.audio[i] for i in spoken)
    seconds = audio_bytes / 2 / SAMPLE_RATE  # 16-bit mono PCM
    return CheckResult(
        NAME,
        first_audio_ms=tally.first_audio_ms,
        total_ms=elapsed_ms(tally.start),
        detail=(
            f"{SPOKEN_SENTENCES} sentences, {seconds:.2f} s of audio; cancel acknowledged "
            f"(dropped {dropped}); session_end"
        ),
        real_time_factor=tally.real_time_factor,
    )

"""`TTS`: Kokoro-82M behind LiveKit Agents' TTS interface, on kokoro_stream's transports.

- `stream()` -> `SynthesizeStream`: the LLM's tokens go into one Kokoro session as they
  arrive (the server's segmenter cuts sentences, so no tokenizer waits in front of it);
  `end_input` sends `close`, and the server's `session_end` ends the stream. One session per
  stream, one segment per stream (what LiveKit 1.8 expects of a stream).
- `synthesize(text)` -> `ChunkedStream`: the same session with the whole text and `close`.
- Word timestamps: the server's v1.1 `words` become `TimedString`s, aligned to the stream's
  audio (each sentence's words shifted by the audio before it) and spaced as the text is
  written (kokoro_stream.spacing), so the transcript synchronizer shows the words as they
  are heard and LiveKit keeps what was played when the user interrupts.
- Interruption: LiveKit closes the stream (`aclose` cancels `_run`); the session is sent
  `cancel` and closed, so the server drops what it had not synthesized yet.
- Errors: a session that cannot open, or a transport that fails, raises APIConnectionError
  (LiveKit retries while no audio was pushed); a fatal server `error` raises APIError; a
  non-fatal one (a sentence the server could not speak, with its index and text) is logged
  and emitted as a recoverable `error` event on the TTS, never dropped. A server that goes
  silent while it owes an answer (no event for `conn_options.timeout` after a `flush` or
  `close`: kokoro_stream.watchdog) raises APITimeoutError instead of holding the stream
  open; a quiet server while the LLM still writes owes nothing.
- The SageMaker transport (AWS SDK, awscrt, botocore) is imported only by `TTS.sagemaker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from dataclasses import replace
from typing import Any, Literal

from kokoro_stream import (
    SERVER_SAMPLE_RATES,
    SPEED_RANGE,
    TtsSession,
    TtsTransport,
    describe_error,
)
from kokoro_stream import events as tts_events
from kokoro_stream.messages import BYTES_PER_SAMPLE
from kokoro_stream.spacing import spaced_words
from kokoro_stream.watchdog import WatchedSession
from kokoro_stream.websocket import WebSocketTts, bidi_url
from livekit.agents import (
    APIConnectionError,
    APIConnectOptions,
    APIError,
    APITimeoutError,
    tts,
    utils,
)
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS
from livekit.agents.voice.io import TimedString

from .log import logger

CANCEL_TIMEOUT_S = 1.0


# No events of its own beyond LiveKit's ("metrics_collected", "error").
class TTS(tts.TTS[Literal["metrics_collected", "error"]]):
    def __init__(
        self,
        *,
        transport: TtsTransport,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int = 24000,
        word_timestamps: bool = True,
        description: str | None = None,
    ) -> None:
        """Kokoro over any kokoro_stream transport; `TTS.websocket` and `TTS.sagemaker` build one.

        Args:
            transport: opens sessions (`kokoro_stream.websocket.WebSocketTts`,
                `kokoro_stream.sagemaker.SageMakerBidiTts`).
            voice: voice id (e.g. `af_heart`, `jf_alpha`) or a blend `name:weight+name:weight`
                (`jf_alpha:2+jf_nezumi:1`, at most 4 voices); None: the server's default.
            speed: 0.5-2.0; None: the server's default (1.0).
            sample_rate: one the server produces (8000, 16000, 22050, 24000).
            word_timestamps: ask for v1.1 `words` (aligned transcripts).
            description: names the target in errors and logs.
        """
        if sample_rate not in SERVER_SAMPLE_RATES:
            raise ValueError(f"sample_rate must be one of {SERVER_SAMPLE_RATES}, got {sample_rate}")
        _check_speed(speed)
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=word_timestamps),
            sample_rate=sample_rate,
            num_channels=1,
        )
        self._transport = transport
        # What every stream's session is opened with (update_options changes it).
        self._options = tts_events.SessionOptions(
            voice=voice, sample_rate=sample_rate, word_timestamps=word_timestamps, speed=speed
        )
        self.description: str = description or str(getattr(transport, "name", "Kokoro"))
        self._streams: weakref.WeakSet[SynthesizeStream] = weakref.WeakSet()

    @classmethod
    def websocket(cls, url: str = "ws://127.0.0.1:8080", **kwargs: Any) -> TTS:
        """Kokoro in a container (local or reachable) on its WebSocket route; `url` is the
        server's base URL or the full `/invocations-bidirectional-stream` URL."""
        full = bidi_url(url)
        return cls(transport=WebSocketTts(full), description=full, **kwargs)

    @classmethod
    def sagemaker(cls, endpoint_name: str, region: str | None = None, **kwargs: Any) -> TTS:
        """Kokoro on a SageMaker endpoint with bidirectional streaming (port 8443, botocore's
        credential chain). `region`: None reads AWS_REGION, AWS_DEFAULT_REGION, the profile."""
        from kokoro_stream.sagemaker import SageMakerBidiTts

        transport = SageMakerBidiTts(endpoint_name, region)
        return cls(transport=transport, description=transport.description, **kwargs)

    @property
    def model(self) -> str:
        return "kokoro-82m"

    @property
    def provider(self) -> str:
        return "kokoro"

    def update_options(self, *, voice: str | None = None, speed: float | None = None) -> None:
        """From the next stream on."""
        _check_speed(speed)
        self._options = replace(
            self._options,
            voice=self._options.voice if voice is None else voice,
            speed=self._options.speed if speed is None else speed,
        )

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> ChunkedStream:
        return ChunkedStream(tts=self, input_text=text, conn_options=conn_options)

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> SynthesizeStream:
        stream = SynthesizeStream(tts=self, conn_options=conn_options)
        self._streams.add(stream)
        return stream

    async def aclose(self) -> None:
        for stream in list(self._streams):
            await stream.aclose()
        self._streams.clear()
        await self._transport.aclose()

    async def _open_session(
        self, emitter: tts.AudioEmitter, conn_options: APIConnectOptions, *, stream: bool
    ) -> tuple[str, TtsSession]:
        """`emitter` set up for this TTS's audio, and a session open: the request's id and
        the session, watched for a stalled server with the stream's timeout
        (APIConnectionError if it cannot open: LiveKit retries)."""
        request_id = utils.shortuuid()
        emitter.initialize(
            request_id=request_id,
            sample_rate=self.sample_rate,
            num_channels=1,
            mime_type="audio/pcm",
            stream=stream,
        )
        try:
            session = await self._transport.open_session(self._options)
        except Exception as exc:
            raise APIConnectionError(
                f"cannot open a Kokoro session on {self.description}: {describe_error(exc)}"
            ) from exc
        return request_id, WatchedSession(session, conn_options.timeout)


class ChunkedStream(tts.ChunkedStream):
    """The whole text in one session: `text`, then `close`."""

    def __init__(self, *, tts: TTS, input_text: str, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, input_text=input_text, conn_options=conn_options)
        self._kokoro = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        options = self._conn_options
        _, session = await self._kokoro._open_session(output_emitter, options, stream=False)
        try:
            await session.send_text(self.input_text)
            await session.close()
            await _play(self._kokoro, session, output_emitter, segment_id=None)
        finally:
            await session.aclose()


class SynthesizeStream(tts.SynthesizeStream):
    """The LLM's tokens into one session as they arrive; `end_input` sends `close`."""

    def __init__(self, *, tts: TTS, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, conn_options=conn_options)
        self._kokoro = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        options = self._conn_options
        request_id, session = await self._kokoro._open_session(output_emitter, options, stream=True)
        sender = asyncio.create_task(self._send_input(session), name="kokoro-send")
        ended = False
        try:
            await _play(self._kokoro, session, output_emitter, segment_id=request_id)
            ended = True
            await sender
        finally:
            if not sender.done():
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await sender
            if not ended:
                # Interrupted (LiveKit closed the stream) or failed: the server drops what it
                # has not synthesized yet; then the session goes.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(session.cancel(), CANCEL_TIMEOUT_S)
            await session.aclose()

    async def _send_input(self, session: TtsSession) -> None:
        pending = False  # text sent since the last flush
        async for data in self._input_ch:
            if isinstance(data, self._FlushSentinel):
                if pending:
                    await session.flush()
                    pending = False
                continue
            self._mark_started()
            await session.send_text(data)
            pending = True
        await session.close()  # flushes the rest; the server ends with session_end


async def _play(
    kokoro: TTS, session: TtsSession, emitter: tts.AudioEmitter, *, segment_id: str | None
) -> None:
    """Audio and aligned words of the session into `emitter` until `session_end`."""
    clock = _StreamClock(kokoro.sample_rate)
    started = False
    async for event in session.events():
        match event:
            case tts_events.TtsAudio():
                emitter.push(event.data)
            case tts_events.TtsWords():
                emitter.push_timed_transcript(clock.timed(event))
            case tts_events.SentenceStart():
                if segment_id is not None and not started:
                    emitter.start_segment(segment_id=segment_id)
                started = True
                clock.sentence_start(event)
            case tts_events.SynthesisComplete():
                clock.synthesis_complete(event)
            case tts_events.ServerError():
                _server_error(kokoro, event)
            case tts_events.SessionEnd():
                return
            case tts_events.TtsFailure(code="tts_timeout"):
                raise APITimeoutError(f"Kokoro on {kokoro.description}: {event.message}")
            case tts_events.TtsFailure():
                raise APIConnectionError(f"Kokoro session on {kokoro.description}: {event.message}")
    raise APIConnectionError(f"Kokoro session on {kokoro.description} ended before session_end")


class _StreamClock:
    """Times the server's words on the stream's audio: each sentence's words shifted by the
    audio before it, spaced as the sentence is written."""

    def __init__(self, sample_rate: int) -> None:
        self._sample_rate = sample_rate
        self._offset_s = 0.0  # the stream's audio before the current sentence
        self._sentence_text = ""

    def sentence_start(self, event: tts_events.SentenceStart) -> None:
        self._sentence_text = event.text

    def synthesis_complete(self, event: tts_events.SynthesisComplete) -> None:
        self._offset_s += event.audio_bytes / (BYTES_PER_SAMPLE * self._sample_rate)

    def timed(self, event: tts_events.TtsWords) -> list[TimedString]:
        offset = self._offset_s
        texts = spaced_words(
            self._sentence_text, [w.text for w in event.words], continues=offset > 0
        )
        return [
            TimedString(
                text, start_time=offset + w.start_ms / 1000.0, end_time=offset + w.end_ms / 1000.0
            )
            for text, w in zip(texts, event.words, strict=True)
        ]


def _server_error(kokoro: TTS, error: tts_events.ServerError) -> None:
    described = error.describe()
    if error.fatal:
        raise APIError(described, body=error.raw, retryable=False)
    # The session goes on; the sentence is reported, not dropped silently.
    logger.warning(described, extra={"kokoro_error": error.raw})
    kokoro.emit(
        "error",
        tts.TTSError(
            timestamp=time.time(),
            label=kokoro.label,
            error=APIError(described, body=error.raw, retryable=False),
            recoverable=True,
        ),
    )


def _check_speed(speed: float | None) -> None:
    low, high = SPEED_RANGE
    if speed is not None and not low <= speed <= high:
        raise ValueError(f"speed must be within {low}-{high}, got {speed}")

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
  and emitted as a recoverable `error` event on the TTS, never dropped.
- The SageMaker transport (AWS SDK, awscrt, botocore) is imported only by `TTS.sagemaker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from typing import TYPE_CHECKING, Any, Literal

from kokoro_stream import (
    SERVER_SAMPLE_RATES,
    SPEED_RANGE,
    TtsAudio,
    TtsControl,
    TtsFailure,
    TtsSession,
    TtsTransport,
    TtsWords,
)
from kokoro_stream.messages import BYTES_PER_SAMPLE
from kokoro_stream.spacing import spaced_words
from kokoro_stream.websocket import WebSocketTts, bidi_url
from livekit.agents import APIConnectionError, APIConnectOptions, APIError, tts, utils
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS
from livekit.agents.voice.io import TimedString

from .log import logger

if TYPE_CHECKING:
    from smithy_http.aio.interfaces import HTTPClient

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
            voice: voice id (e.g. `af_heart`, `jf_alpha`); None: the server's default.
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
        self._voice = voice
        self._speed = speed
        self._word_timestamps = word_timestamps
        self.description = description or getattr(transport, "name", "Kokoro")
        self._streams: weakref.WeakSet[SynthesizeStream] = weakref.WeakSet()

    @classmethod
    def websocket(cls, url: str = "ws://127.0.0.1:8080", **kwargs: Any) -> TTS:
        """Kokoro in a container (local or reachable) on its WebSocket route; `url` is the
        server's base URL or the full `/invocations-bidirectional-stream` URL."""
        full = bidi_url(url)
        return cls(transport=WebSocketTts(full), description=full, **kwargs)

    @classmethod
    def sagemaker(
        cls,
        endpoint_name: str,
        region: str | None = None,
        *,
        http_transport: HTTPClient | None = None,
        **kwargs: Any,
    ) -> TTS:
        """Kokoro on a SageMaker endpoint with bidirectional streaming (port 8443, botocore's
        credential chain). `region`: None reads AWS_REGION, AWS_DEFAULT_REGION, the profile.
        `http_transport` replaces the SDK's HTTP transport (tests only)."""
        from kokoro_stream.sagemaker import SageMakerBidiTts

        transport = SageMakerBidiTts(endpoint_name, region, transport=http_transport)
        description = f"SageMaker endpoint {endpoint_name} ({transport.region})"
        return cls(transport=transport, description=description, **kwargs)

    @property
    def model(self) -> str:
        return "kokoro-82m"

    @property
    def provider(self) -> str:
        return "kokoro"

    def update_options(self, *, voice: str | None = None, speed: float | None = None) -> None:
        """From the next stream on."""
        _check_speed(speed)
        if voice is not None:
            self._voice = voice
        if speed is not None:
            self._speed = speed

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

    async def _open_session(self) -> TtsSession:
        try:
            return await self._transport.open_session(
                self._voice,
                "pcm",
                self.sample_rate,
                word_timestamps=self._word_timestamps,
                speed=self._speed,
            )
        except Exception as exc:
            raise APIConnectionError(
                f"cannot open a Kokoro session on {self.description}: {_describe(exc)}"
            ) from exc


class ChunkedStream(tts.ChunkedStream):
    """The whole text in one session: `text`, then `close`."""

    def __init__(self, *, tts: TTS, input_text: str, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, input_text=input_text, conn_options=conn_options)
        self._kokoro = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        request_id = utils.shortuuid()
        output_emitter.initialize(
            request_id=request_id,
            sample_rate=self._kokoro.sample_rate,
            num_channels=1,
            mime_type="audio/pcm",
        )
        session = await self._kokoro._open_session()
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
        request_id = utils.shortuuid()
        output_emitter.initialize(
            request_id=request_id,
            sample_rate=self._kokoro.sample_rate,
            num_channels=1,
            mime_type="audio/pcm",
            stream=True,
        )
        session = await self._kokoro._open_session()
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
    rate = kokoro.sample_rate
    started = False
    offset_s = 0.0  # the stream's audio before the current sentence
    sentence_text = ""
    async for event in session.events():
        if isinstance(event, TtsFailure):
            raise APIConnectionError(f"Kokoro session on {kokoro.description}: {event.message}")
        if isinstance(event, TtsAudio):
            emitter.push(event.data)
            continue
        if isinstance(event, TtsWords):
            texts = spaced_words(
                sentence_text, [w.text for w in event.words], continues=offset_s > 0
            )
            emitter.push_timed_transcript(
                [
                    TimedString(
                        text,
                        start_time=offset_s + w.start_ms / 1000.0,
                        end_time=offset_s + w.end_ms / 1000.0,
                    )
                    for text, w in zip(texts, event.words, strict=True)
                ]
            )
            continue
        message = event.message
        match event.type:
            case "sentence_start":
                if segment_id is not None and not started:
                    emitter.start_segment(segment_id=segment_id)
                started = True
                sentence_text = str(message.get("text", ""))
            case "synthesis_complete":
                audio_bytes = message.get("audio_bytes")
                if isinstance(audio_bytes, int):
                    offset_s += audio_bytes / (BYTES_PER_SAMPLE * rate)
            case "error":
                _server_error(kokoro, event)
            case "session_end":
                return
    raise APIConnectionError(f"Kokoro session on {kokoro.description} ended before session_end")


def _server_error(kokoro: TTS, event: TtsControl) -> None:
    message = event.message
    code, text, index = message.get("code"), message.get("text"), message.get("index")
    where = f" in sentence {index} ({text!r})" if index is not None else ""
    error = f"Kokoro TTS error {code}{where}: {message.get('message', '')}"
    if message.get("fatal"):
        raise APIError(error, body=message, retryable=False)
    # The session goes on; the sentence is reported, not dropped silently.
    logger.warning(error, extra={"kokoro_error": message})
    kokoro.emit(
        "error",
        tts.TTSError(
            timestamp=time.time(),
            label=kokoro.label,
            error=APIError(error, body=message, retryable=False),
            recoverable=True,
        ),
    )


def _check_speed(speed: float | None) -> None:
    low, high = SPEED_RANGE
    if speed is not None and not low <= speed <= high:
        raise ValueError(f"speed must be within {low}-{high}, got {speed}")


def _describe(exc: BaseException) -> str:
    parts = [f"{type(exc).__name__}: {exc}"]
    cause = exc.__cause__ or exc.__context__
    if cause is not None:
        parts.append(f"caused by {type(cause).__name__}: {cause}")
    return "; ".join(parts)

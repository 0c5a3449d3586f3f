"""`KokoroStreamTTSService`: Pipecat semantics over one long-lived Kokoro session.

The session is kokoro_stream's (`TtsTransport.open_session`): a WebSocket to a container or
a SageMaker bidirectional stream; `services.py` picks one.

- LLM text goes to the server token by token as it arrives (`TextAggregationMode.TOKEN`):
  the server's own segmenter cuts sentences, so no second splitter waits in front of it.
- End of the LLM reply -> `flush`; the server's `flushed` ends the turn (TTSStoppedFrame).
- Interruption: Pipecat's `on_audio_context_interrupted` hook, once per dropped context ->
  `cancel` (or, next to an uninterruptible context, a flush whose audio is discarded here).
- Audio at the pipeline's sample rate: asked of the server when it can produce it, else
  resampled from 24 kHz by a stream resampler that is flushed at the end of every turn (its
  filter holds the last few ms otherwise).
- TTFB (Pipecat's audio contexts), usage metrics and `@traced_tts` spans per text.
- v1.1 `words` become Pipecat word timestamps (spaced as the text is written), so the
  assistant context keeps only the words that were played when the user interrupts.
- Server `error`s become `KokoroErrorFrame`s with the server's code, and for a sentence that
  could not be spoken its index and text; a lost session says what failed (credentials,
  connection, protocol, the endpoint) in the ErrorFrame's message and category.
- A keepalive (an empty `start`, which the server merges as no change) goes out after
  `keepalive_s` without a message, so an idle bot keeps its session past the server's idle
  timeout.
- A lost session ends its turns (audio already received still plays), reports an error and
  reconnects with backoff; the next text reconnects at once if that has not happened yet.
  A session that owes an answer (a `flush` or `cancel` sent) and sends nothing for
  `answer_timeout_s` counts as lost too (kokoro_stream.watchdog): a stalled server never
  holds a turn open.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any

from kokoro_stream import (
    ServerError,
    SessionOptions,
    TtsConnectionLost,
    TtsFailure,
    TtsProtocolError,
    TtsSession,
    TtsTransport,
    describe_error,
    server_sample_rate,
)
from kokoro_stream.messages import keepalive_message
from kokoro_stream.spacing import written_unspaced
from kokoro_stream.watchdog import WatchedSession
from loguru import logger
from pipecat.audio.utils import create_stream_resampler
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    StartFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TextAggregationMode, TTSService
from pipecat.utils.errors import ErrorCategory
from pipecat.utils.tracing.service_decorators import traced_tts
from pipecat.utils.types import NOT_GIVEN, NotGiven

from .errors import failure_category, open_failure_category, server_error_frame
from .router import Action, PlayAudio, PlayWords, TurnFinished, TurnRouter

# `type: ignore[no-untyped-call]` below: Pipecat leaves those methods unannotated.


@dataclass
class KokoroTTSSettings(TTSSettings):
    """Runtime-updatable settings: `voice` (e.g. `af_heart`, `jf_alpha`; its first letter
    picks the language; or a blend, `jf_alpha:2+jf_nezumi:1`) and `speed` (0.5-2.0). Both
    apply from the next turn on."""

    speed: float | NotGiven | None = field(default_factory=lambda: NOT_GIVEN)

    @classmethod
    def of(
        cls, voice: str | None, speed: float | None, update: KokoroTTSSettings | None
    ) -> KokoroTTSSettings:
        """The service's settings: its `voice` and `speed` arguments, then `update` over them."""
        store = cls(model="kokoro-82m", voice=voice, language=None, speed=speed)
        if update is not None:
            store.apply_update(update)
        return store


class KokoroStreamTTSService(TTSService):
    """Kokoro-82M over a bidirectional session; the transport comes from kokoro_stream.

    Use `KokoroWebSocketTTSService` or `KokoroSageMakerTTSService`; this base takes any
    `kokoro_stream.TtsTransport` (`transport`)."""

    Settings = KokoroTTSSettings
    _settings: KokoroTTSSettings

    def __init__(
        self,
        *,
        transport: TtsTransport,
        description: str | None = None,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        word_timestamps: bool = True,
        reconnect_attempts: int = 5,
        reconnect_backoff_s: float = 0.5,
        keepalive_s: float | None = 60.0,
        answer_timeout_s: float | None = 15.0,
        settings: KokoroTTSSettings | None = None,
        **kwargs: Any,
    ) -> None:
        """
        Args:
            transport: opens sessions (`kokoro_stream.websocket.WebSocketTts`,
                `kokoro_stream.sagemaker.SageMakerBidiTts`).
            description: names the transport's target in errors and logs.
            voice: voice id, or a blend `name:weight+name:weight` (at most 4 voices of one
                language); None uses the server's default voice.
            speed: speech rate 0.5-2.0; None uses the server's default (1.0).
            sample_rate: output rate; None uses the pipeline's (`audio_out_sample_rate`).
            word_timestamps: ask for v1.1 `words` (a v1 server ignores it; Pipecat then
                times each sentence's text at the end of its audio).
            reconnect_attempts: background reconnects after a lost session (backoff doubles
                from `reconnect_backoff_s`); after that, the next text tries again.
            keepalive_s: send a keepalive after this long without a message (the server
                closes a session idle for 300 s by default); None: never.
            answer_timeout_s: a session that owes an answer (a `flush` or `cancel` sent)
                and sends nothing for this long is lost (its turns end, an error says so,
                it reconnects); longer than one slow sentence on CPU. None: never.
            settings: a `KokoroTTSSettings` overriding voice/speed.
            **kwargs: passed to Pipecat's `TTSService`.
        """
        kwargs.setdefault("text_aggregation_mode", TextAggregationMode.TOKEN)
        # Turns end on the server's `flushed`; the timeout is only a safety net, longer than
        # one slow sentence on CPU so a pause between sentences never ends a turn early.
        kwargs.setdefault("stop_frame_timeout_s", 20.0)
        super().__init__(
            sample_rate=sample_rate,
            push_text_frames=False,
            push_start_frame=True,
            push_stop_frames=False,
            pause_frame_processing=False,
            settings=KokoroTTSSettings.of(voice, speed, settings),
            **kwargs,
        )
        self._transport = transport
        self._description = description or getattr(transport, "name", "Kokoro")
        self._word_timestamps = word_timestamps
        self._keepalive_s = keepalive_s
        self._answer_timeout_s = answer_timeout_s
        self._reconnect_attempts = reconnect_attempts
        self._reconnect_backoff_s = reconnect_backoff_s
        self._init_session_state()

    def _init_session_state(self) -> None:
        """The session's moving parts: none open yet, nothing sent."""
        self._router = TurnRouter()
        self._connection: TtsSession | None = None
        self._receive_task: asyncio.Task[None] | None = None
        self._reconnect_task: asyncio.Task[None] | None = None
        self._keepalive_task: asyncio.Task[None] | None = None
        self._last_sent = time.monotonic()
        self._connect_lock = asyncio.Lock()
        self._send_lock = asyncio.Lock()
        # Its own stream resampler (not the base class's), flushed at the end of every turn.
        self._turn_resampler = create_stream_resampler()
        self._disconnecting = False
        self._failed_turn: str | None = None  # the turn whose connect attempt failed

    # ---- Pipecat hooks ------------------------------------------------------------------

    def can_generate_metrics(self) -> bool:
        return True

    @property
    def supports_processing_metrics(self) -> bool:
        # run_tts only hands the text over; TTFB/TTFA carry the latency.
        return False

    @property
    def connected(self) -> bool:
        return self._connection is not None

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        self._disconnecting = False
        await self._connect(report=True)

    async def stop(self, frame: EndFrame) -> None:
        # Text still open is spoken before the pipeline ends (Pipecat plays it out).
        await self._send(self._router.flush_all)
        await super().stop(frame)
        await self._disconnect()

    async def cancel(self, frame: CancelFrame) -> None:
        await super().cancel(frame)
        await self._disconnect()

    async def cleanup(self) -> None:
        await super().cleanup()  # type: ignore[no-untyped-call]
        await self._disconnect()

    @traced_tts
    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        if self._connection is None and not await self._connect_for_turn(context_id):
            logger.debug(f"{self}: not connected, not speaking [{text}]")
            yield None
            return
        options = self._session_options()
        await self._send(lambda: self._router.text(context_id, text, options))
        await self.start_tts_usage_metrics(text)
        yield None  # audio arrives on the receive task

    async def flush_audio(self, context_id: str | None = None) -> None:
        if context_id is not None:
            await self._flush_turn(context_id)

    async def on_turn_context_completed(self) -> None:
        # Pipecat flushes only while the turn's audio context is open; the server needs the
        # flush regardless (its segmenter holds the tail), so it is sent here too (idempotent).
        context_id = self._turn_context_id
        await super().on_turn_context_completed()  # type: ignore[no-untyped-call]
        if context_id is not None:
            await self._flush_turn(context_id)

    async def _flush_turn(self, context_id: str) -> None:
        if self._connection is None:
            # Nothing was sent (no session): end the turn now rather than at the timeout.
            await self._end_turn(context_id)
            return
        await self._send(lambda: self._router.flush(context_id))

    async def on_audio_context_interrupted(self, context_id: str) -> None:
        # Pipecat calls this once per interruptible context it drops (uninterruptible ones
        # keep playing); the router cancels on the server once no live turn is left.
        await super().on_audio_context_interrupted(context_id)
        await self._send(lambda: self._router.drop(context_id))
        await self._turn_resampler.reset()  # type: ignore[no-untyped-call]

    # ---- the session --------------------------------------------------------------------

    def _session_options(self) -> SessionOptions:
        """What a session (or a turn) asks for now: the settings' voice and speed, pcm at
        the server's rate nearest the pipeline's."""
        voice = self._settings.voice if isinstance(self._settings.voice, str) else None
        speed = self._settings.speed
        return SessionOptions(
            voice=voice,
            sample_rate=server_sample_rate(self.sample_rate),
            word_timestamps=self._word_timestamps,
            speed=float(speed) if isinstance(speed, int | float) else None,
        )

    async def _connect_for_turn(self, context_id: str) -> bool:
        """At most one attempt per turn (not one per token), reported once."""
        if self._failed_turn == context_id:
            return False
        if await self._connect(report=True):
            return True
        self._failed_turn = context_id
        return False

    async def _connect(self, *, report: bool) -> bool:
        async with self._connect_lock:
            if self._connection is not None:
                return True
            options = self._session_options()
            try:
                connection: TtsSession = await self._transport.open_session(options)
            except Exception as exc:
                if report:
                    await self._report_error(
                        f"cannot open a Kokoro session on {self._description}: "
                        f"{describe_error(exc)}",
                        open_failure_category(exc),
                        exc,
                    )
                return False
            if self._answer_timeout_s:
                connection = WatchedSession(connection, self._answer_timeout_s)
            self._router = TurnRouter(options, opened=True)
            self._connection = connection
            self._last_sent = time.monotonic()
            self._receive_task = self.create_task(self._receive(connection), name="kokoro-recv")
            if self._keepalive_s and (self._keepalive_task is None or self._keepalive_task.done()):
                self._keepalive_task = self.create_task(self._keepalive(), name="kokoro-keepalive")
            logger.debug(f"{self}: session open on {self._description}")
            await self._call_event_handler("on_connected")
            return True

    async def _send(self, produce: Callable[[], list[dict[str, Any]]]) -> None:
        """Update the router and send what it says, as one step: the process task (text,
        flush) and the interruption (cancel) must not interleave on the wire."""
        async with self._send_lock:
            connection = self._connection
            if connection is None:
                return
            try:
                for message in produce():
                    await connection.send(message)
                    self._last_sent = time.monotonic()
            except TtsConnectionLost as exc:
                await self._lost(connection, f"sending failed: {exc}", ErrorCategory.CONNECTIVITY)

    async def _keepalive(self) -> None:
        """An empty `start` after `keepalive_s` without a message: the server's idle timer
        restarts and nothing else changes (no reply)."""
        assert self._keepalive_s is not None
        while True:
            wait = self._last_sent + self._keepalive_s - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            await self._send(lambda: [keepalive_message()])
            if self._connection is None:
                self._last_sent = time.monotonic()  # nothing to keep alive until reconnected

    async def _receive(self, connection: TtsSession) -> None:
        try:
            async for event in connection.events():
                if isinstance(event, TtsFailure):
                    category = failure_category(event.code)
                    await self._lost(connection, f"{event.code}: {event.message}", category)
                    return
                for action in self._router.receive(event):
                    await self._apply(action)
        except TtsProtocolError as exc:
            await self._lost(connection, f"protocol violation: {exc}", ErrorCategory.SERVER)

    async def _apply(self, action: Action) -> None:
        match action:
            case PlayAudio(context_id, data, rate):
                if rate != self.sample_rate:
                    data = await self._turn_resampler.resample(data, rate, self.sample_rate)
                if data:
                    frame = TTSAudioRawFrame(data, self.sample_rate, 1, context_id=context_id)
                    await self.append_to_audio_context(context_id, frame)
            case PlayWords(context_id, words):
                # Spacing by the text (kokoro_stream.spacing), not the voice: words of an
                # unspaced script written without a space before them carry their own
                # spacing; Pipecat joins every other word with one.
                def joined(word: tuple[str, float]) -> bool:
                    return word[0][:1] != " " and written_unspaced(word[0][:1] or " ")

                for own_spacing, group in itertools.groupby(words, key=joined):
                    await self.add_word_timestamps(
                        [(text.lstrip(" "), at) for text, at in group],
                        context_id,
                        includes_inter_frame_spaces=own_spacing,
                    )
            case TurnFinished(context_id):
                await self._end_turn(context_id)
            case ServerError():
                logger.warning(f"{self}: {action.describe()}")
                await self.push_error_frame(server_error_frame(action))

    async def _end_turn(self, context_id: str) -> None:
        if self.sample_rate != self._router.sample_rate:
            # The resampler's filter holds the turn's last few ms until it is flushed.
            tail = await self._turn_resampler.flush()
            if tail and self.audio_context_available(context_id):
                frame = TTSAudioRawFrame(tail, self.sample_rate, 1, context_id=context_id)
                await self.append_to_audio_context(context_id, frame)
        if self.audio_context_available(context_id):
            await self.append_to_audio_context(context_id, TTSStoppedFrame(context_id=context_id))
            await self.remove_audio_context(context_id)

    async def _lost(self, connection: TtsSession, reason: str, category: ErrorCategory) -> None:
        if connection is not self._connection:
            return  # already handled, or a session we closed ourselves
        self._connection = None
        await connection.aclose()
        await self._turn_resampler.reset()  # type: ignore[no-untyped-call]
        for context_id in self._router.connection_lost():
            await self._end_turn(context_id)
            if context_id == self._turn_context_id:
                # The rest of this reply opens a new audio context on the next session.
                self._turn_context_id = None
                self._turn_context_id = self.create_context_id()
        if self._disconnecting:
            return
        await self._report_error(
            f"Kokoro session lost on {self._description}: {reason}", category, None
        )
        await self._call_event_handler("on_disconnected")
        if self._reconnect_task is None or self._reconnect_task.done():
            self._reconnect_task = self.create_task(self._reconnect(), name="kokoro-reconnect")

    async def _reconnect(self) -> None:
        delay = self._reconnect_backoff_s
        for _ in range(self._reconnect_attempts):
            await asyncio.sleep(delay)
            if self._disconnecting or await self._connect(report=False):
                return
            delay *= 2
        await self._report_error(
            f"Kokoro session on {self._description} not reopened after "
            f"{self._reconnect_attempts} attempts; the next text tries again",
            ErrorCategory.CONNECTIVITY,
            None,
        )

    async def _report_error(
        self, message: str, category: ErrorCategory, exc: Exception | None
    ) -> None:
        logger.warning(f"{self}: {message}")
        await self._call_event_handler("on_connection_error", message)
        await self.push_error(error_msg=message, exception=exc, category=category)

    async def _disconnect(self) -> None:
        self._disconnecting = True
        for task in (self._reconnect_task, self._keepalive_task):
            if task is not None:
                await self.cancel_task(task)
        self._reconnect_task = self._keepalive_task = None
        connection, self._connection = self._connection, None
        if connection is not None:
            self._router.connection_lost()
            await connection.aclose()
        if self._receive_task is not None:
            with contextlib.suppress(Exception):
                await self.cancel_task(self._receive_task)
            self._receive_task = None
        await self._transport.aclose()
        if connection is not None:
            await self._call_event_handler("on_disconnected")

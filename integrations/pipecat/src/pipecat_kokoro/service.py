"""`KokoroTTSService`: Pipecat semantics over one long-lived Kokoro session (any transport).

- LLM text goes to the server token by token as it arrives (`TextAggregationMode.TOKEN`):
  the server's own segmenter cuts sentences, so no second splitter waits in front of it.
- End of the LLM reply -> `flush`; the server's `flushed` ends the turn (TTSStoppedFrame).
- Interruption -> `cancel`, and Pipecat drops the audio already queued; what the server sent
  before its `cancelled` is discarded here (`router.TurnRouter`).
- Audio at the pipeline's sample rate: asked of the server when it can produce it, else
  resampled from 24 kHz. TTFB once per turn (Pipecat's audio-context machinery).
- v1.1 `words` become Pipecat word timestamps, so the assistant context keeps only the words
  that were played when the user interrupts.
- Server `error`s become `KokoroErrorFrame`s carrying the server's code and message.
- A lost session ends its turns (audio already received still plays), reports an error and
  reconnects with backoff; the next text reconnects at once if that has not happened yet.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TextAggregationMode, TTSService
from pipecat.utils.errors import ErrorCategory
from pipecat.utils.types import NOT_GIVEN, NotGiven

from . import protocol
from .connection import Connection, ConnectionLost, Connector
from .protocol import ProtocolViolation
from .router import PlayAudio, PlayWords, ServerError, TurnFinished, TurnRouter

# Server error codes (docs/protocol.md) by what they say about whom.
_APPLICATION_CODES = frozenset(
    {
        "invalid_json",
        "unknown_type",
        "missing_text",
        "text_too_long",
        "frame_too_large",
        "unknown_voice",
        "bad_parameter",
    }
)
_CATEGORY = {
    **dict.fromkeys(_APPLICATION_CODES, ErrorCategory.APPLICATION),
    "queue_full": ErrorCategory.RATE_LIMIT,
    "busy": ErrorCategory.RATE_LIMIT,
    "internal": ErrorCategory.SERVER,
    "not_ready": ErrorCategory.SERVER,
    "idle_timeout": ErrorCategory.CONNECTIVITY,
}


@dataclass
class KokoroErrorFrame(ErrorFrame):
    """An `error` the Kokoro server sent: `code` as the server named it, `error` its message.

    Bad input is reported as APPLICATION (not permanent: the service keeps working, as the
    server's session does); a fatal server error ends the session, which then reconnects."""

    code: str = ""
    server_fatal: bool = False


@dataclass
class KokoroTTSSettings(TTSSettings):
    """Runtime-updatable settings: `voice` (e.g. `af_heart`, `jf_alpha`; its first letter
    picks the language) and `speed` (0.5-2.0). Both apply from the next turn on."""

    speed: float | NotGiven | None = field(default_factory=lambda: NOT_GIVEN)


class KokoroTTSService(TTSService):
    """Kokoro-82M over a bidirectional session; transports come from `connector`."""

    Settings = KokoroTTSSettings
    _settings: KokoroTTSSettings

    def __init__(
        self,
        *,
        connector: Connector,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        word_timestamps: bool = True,
        reconnect_attempts: int = 5,
        reconnect_backoff_s: float = 0.5,
        settings: KokoroTTSSettings | None = None,
        **kwargs: Any,
    ) -> None:
        """
        Args:
            connector: opens sessions (`WebSocketConnector`, `SageMakerConnector`).
            voice: voice id; None uses the server's default voice.
            speed: speech rate 0.5-2.0; None uses the server's default (1.0).
            sample_rate: output rate; None uses the pipeline's (`audio_out_sample_rate`).
            word_timestamps: ask for v1.1 `words` (a v1 server ignores it; Pipecat then
                times each sentence's text at the end of its audio).
            reconnect_attempts: background reconnects after a lost session (backoff doubles
                from `reconnect_backoff_s`); after that, the next text tries again.
            settings: a `KokoroTTSSettings` overriding voice/speed.
            **kwargs: passed to Pipecat's `TTSService`.
        """
        store = KokoroTTSSettings(model="kokoro-82m", voice=voice, language=None, speed=speed)
        if settings is not None:
            store.apply_update(settings)
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
            settings=store,
            **kwargs,
        )
        self._connector = connector
        self._word_timestamps = word_timestamps
        self._reconnect_attempts = reconnect_attempts
        self._reconnect_backoff_s = reconnect_backoff_s
        self._router = TurnRouter()
        self._connection: Connection | None = None
        self._receive_task: asyncio.Task | None = None
        self._reconnect_task: asyncio.Task | None = None
        self._connect_lock = asyncio.Lock()
        self._send_lock = asyncio.Lock()
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
        await super().cleanup()
        await self._disconnect()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        if self._connection is None and not await self._connect_for_turn(context_id):
            logger.debug(f"{self}: not connected, not speaking [{text}]")
            yield None
            return
        options = self._voice_options()
        await self._send(lambda: self._router.text(context_id, text, options))
        yield None  # audio arrives on the receive task

    async def flush_audio(self, context_id: str | None = None) -> None:
        if context_id is not None:
            await self._flush_turn(context_id)

    async def on_turn_context_completed(self) -> None:
        # Pipecat flushes only while the turn's audio context is open; the server needs the
        # flush regardless (its segmenter holds the tail), so it is sent here too (idempotent).
        context_id = self._turn_context_id
        await super().on_turn_context_completed()
        if context_id is not None:
            await self._flush_turn(context_id)

    async def _flush_turn(self, context_id: str) -> None:
        if self._connection is None:
            # Nothing was sent (no session): end the turn now rather than at the timeout.
            await self._end_turn(context_id)
            return
        await self._send(lambda: self._router.flush(context_id))

    async def _handle_interruption(
        self, frame: InterruptionFrame, direction: FrameDirection
    ) -> None:
        await super()._handle_interruption(frame, direction)
        keep = {cid for cid, ctx in self._tts_contexts.items() if not ctx.interruptible}
        await self._send(lambda: self._router.interrupt(keep))

    # ---- the session --------------------------------------------------------------------

    def _voice_options(self) -> tuple[str | None, float | None]:
        voice = self._settings.voice if isinstance(self._settings.voice, str) else None
        speed = self._settings.speed
        return voice, float(speed) if isinstance(speed, int | float) else None

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
            try:
                connection = await self._connector.connect()
            except ConnectionLost as exc:
                if report:
                    await self._report_connection_error(
                        f"cannot open a Kokoro session on {self._connector.description}: {exc}"
                    )
                return False
            rate = protocol.server_sample_rate(self.sample_rate)
            self._router = TurnRouter(rate, word_timestamps=self._word_timestamps)
            self._connection = connection
            self._receive_task = self.create_task(self._receive(connection), name="kokoro-recv")
            logger.debug(f"{self}: session open on {self._connector.description}")
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
            except ConnectionLost as exc:
                await self._lost(connection, str(exc))

    async def _receive(self, connection: Connection) -> None:
        try:
            async for message in connection.messages():
                for action in self._router.receive(message):
                    await self._apply(action)
        except ConnectionLost as exc:
            await self._lost(connection, str(exc))
        except ProtocolViolation as exc:
            await self._lost(connection, f"protocol violation: {exc}")

    async def _apply(self, action: PlayAudio | PlayWords | TurnFinished | ServerError) -> None:
        match action:
            case PlayAudio(context_id, data, rate):
                if rate != self.sample_rate:
                    data = await self._resampler.resample(data, rate, self.sample_rate)
                frame = TTSAudioRawFrame(data, self.sample_rate, 1, context_id=context_id)
                await self.append_to_audio_context(context_id, frame)
            case PlayWords(context_id, words):
                await self.add_word_timestamps(
                    words, context_id, includes_inter_frame_spaces=self._words_carry_spacing()
                )
            case TurnFinished(context_id):
                await self._end_turn(context_id)
            case ServerError(code, message, fatal):
                await self.push_error_frame(
                    KokoroErrorFrame(
                        error=f"Kokoro TTS error {code}: {message}",
                        code=code,
                        server_fatal=fatal,
                        category=_CATEGORY.get(code, ErrorCategory.UNKNOWN),
                    )
                )

    def _words_carry_spacing(self) -> bool:
        # Japanese and Mandarin voices: words are not separated by spaces.
        voice, _ = self._voice_options()
        return bool(voice) and voice[0] in ("j", "z")

    async def _end_turn(self, context_id: str) -> None:
        if self.audio_context_available(context_id):
            await self.append_to_audio_context(context_id, TTSStoppedFrame(context_id=context_id))
            await self.remove_audio_context(context_id)

    async def _lost(self, connection: Connection, reason: str) -> None:
        if connection is not self._connection:
            return  # already handled, or a session we closed ourselves
        self._connection = None
        await connection.close()
        for context_id in self._router.connection_lost():
            await self._end_turn(context_id)
            if context_id == self._turn_context_id:
                # The rest of this reply opens a new audio context on the next session.
                self._turn_context_id = None
                self._turn_context_id = self.create_context_id()
        if self._disconnecting:
            return
        await self._report_connection_error(f"Kokoro session lost: {reason}")
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
        await self._report_connection_error(
            f"Kokoro session on {self._connector.description} not reopened after "
            f"{self._reconnect_attempts} attempts; the next text tries again"
        )

    async def _report_connection_error(self, message: str) -> None:
        logger.warning(f"{self}: {message}")
        await self._call_event_handler("on_connection_error", message)
        await self.push_error(error_msg=message, category=ErrorCategory.CONNECTIVITY)

    async def _disconnect(self) -> None:
        self._disconnecting = True
        if self._reconnect_task is not None:
            await self.cancel_task(self._reconnect_task)
            self._reconnect_task = None
        connection, self._connection = self._connection, None
        if connection is not None:
            self._router.connection_lost()
            await connection.close()
        if self._receive_task is not None:
            with contextlib.suppress(Exception):
                await self.cancel_task(self._receive_task)
            self._receive_task = None
        await self._connector.aclose()
        if connection is not None:
            await self._call_event_handler("on_disconnected")

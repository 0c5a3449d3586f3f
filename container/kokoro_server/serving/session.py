"""One bidirectional TTS session: protocol v1 over any message transport.

Three concurrent stages, joined by queues, so no stage waits on another's slow work:

    receive -> (segmenter) -> inbox -> synthesize -> outbox -> send

- receive: parses frames, answers bad ones with non-fatal errors, feeds text to the segmenter
  and queues each sentence the moment it is complete.
- synthesize: runs the model off the event loop, one sentence at a time, in order. Each
  sentence carries its playback deadline (scheduler.PlaybackClock): the service's scheduler
  serves the sentence whose listener runs out of audio first, across all sessions.
- send: writes `sentence_start`, `words` (v1.1, when asked for), the audio frames and
  `synthesis_complete` for each sentence, and `flushed` / `session_end` at their place.

The receive stage reads until the session ends, also after `close`: a `cancel` that follows
`close` (an agent whose LLM had finished when the caller barged in) drops what is still
queued and stops the sentence in progress, and `session_end` follows at once.

Barge-in uses a generation counter. `cancel` bumps it under the send lock, so every item of an
older generation is dropped wherever it is, and the sender, which checks the generation under
the same lock before every frame, can never write audio of a dropped sentence after
`cancelled`. The sentence the model is working on is stopped too (service.drop).

A session must progress or close: every write is bounded by `send_stall_s` (a client that
accepts no audio that long is aborted, and stops counting for admission after a second), and
it idles out once neither a message came nor audio was accepted for `idle_timeout_s`. The
receive stage takes one frame per loop turn, so a flood of tiny frames cannot hold the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Literal, Protocol

from kokoro_server.audio import encoding as audio
from kokoro_server.audio import g711
from kokoro_server.config import Settings
from kokoro_server.logs import fields
from kokoro_server.model_facts import UnknownVoiceError, VoiceSpecError
from kokoro_server.serving import protocol
from kokoro_server.serving.messages import ClientType
from kokoro_server.serving.protocol import UTTERANCE, ClientMessage, Options, ProtocolError
from kokoro_server.serving.scheduler import PlaybackClock
from kokoro_server.serving.synthesis import Dropped, SynthesisService, Synthesized
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.pronunciation import Lexicon, PronunciationError, written
from kokoro_server.text.segmenter import Piece, SentenceSegmenter

log = logging.getLogger("kokoro.session")


class TransportClosed(Exception):
    """The peer went away (or the socket failed): the session ends without more output."""


class Transport(Protocol):
    async def receive(self) -> str | bytes: ...  # raises TransportClosed
    async def send_text(self, data: str) -> None: ...
    async def send_bytes(self, data: bytes) -> None: ...
    async def close(self, code: int = 1000, reason: str = "") -> None: ...
    def abort(self) -> None: ...  # drop the connection, unsent data and all


@dataclass
class _Sentence:
    text: str
    voice: str
    speed: float
    format: str
    sample_rate: int
    generation: int
    frame_ms: int = 0
    ending: str = "end"  # what ended the piece (segmenter): picks the pause after its audio
    queued_at: float = field(default_factory=time.perf_counter)
    # Framing of the sentence queued right after this one, once it is (G.711 frame carry).
    next_framing: tuple[object, ...] | None = None

    @property
    def framing(self) -> tuple[object, ...] | None:
        return (self.generation, self.format, self.frame_ms) if self.frame_ms else None


@dataclass
class _Marker:
    kind: Literal["flush", "close"]
    generation: int


@dataclass
class _Failed:
    code: str
    message: str


@dataclass
class _Notice:
    """An utterance with nothing to say: reported at its place in the stream."""

    text: str
    generation: int


@dataclass
class _Utterance:
    """What the text since the last flush was, to tell when none of it could be spoken."""

    text: str = ""  # its start, for the notice
    sentences: int = 0

    def received(self, text: str) -> None:
        if len(self.text) < _NOTICE_CHARS:
            self.text = (self.text + text)[:_NOTICE_CHARS]

    @property
    def unspoken(self) -> bool:
        return self.sentences == 0 and bool(self.text.strip())


_NOTICE_CHARS = 200
_LOGGED_BAD_FRAMES = 5
# A write waiting this long for its client stops the session counting for admission.
_BLOCKED_UNCOUNTED_S = 1.0
_NOTHING = (
    "nothing to say: the text since the last flush held only markup, emoji, code or "
    "control characters (docs/protocol.md)"
)
_Work = _Sentence | _Marker | _Notice
_Done = tuple[_Sentence, Synthesized | _Failed] | tuple[_Marker | _Notice, None]


class Session:
    def __init__(
        self,
        transport: Transport,
        service: SynthesisService,
        settings: Settings,
        default_voice: str,
    ) -> None:
        self.transport = transport
        self.service = service
        self.settings = settings
        self.id = uuid.uuid4().hex[:12]
        self.request_id: str | None = None
        self.lexicon: Lexicon | None = None  # from `start`; for sentences synthesized after it
        self.word_timestamps = False  # v1.1: a `words` message before each sentence's audio
        self.pause_scale = 1.0  # from `start`: scales every pause the server adds (pacing.py)
        # sample_rate None: the format's default (24000 for pcm, 8000 for G.711, 48000 opus).
        self.defaults = Options(voice=default_voice, speed=1.0, format="pcm", frame_ms=0)
        # Markdown, emoji and control characters out before the segmenter (text/markdown.py).
        self.markdown = MarkdownSpeech()
        self.utterance = _Utterance()
        self.segmenter = SentenceSegmenter(
            first_clause=True,
            first_clause_min_chars=settings.first_clause_min_chars,
            max_chars=settings.max_segment_chars,
        )
        # Options of the last text message, for the tail that a flush releases.
        self.tail_options: Options | None = None
        self.generation = 0
        self.pending = 0  # accepted sentences of this generation not yet fully sent
        self.inbox: asyncio.Queue[_Work] = asyncio.Queue()
        # Small: finished audio waits for the sender in at most two slots, so synthesis never
        # runs far ahead of a slow client (and a cancel has little to throw away).
        self.outbox: asyncio.Queue[_Done] = asyncio.Queue(maxsize=2)
        self.send_lock = asyncio.Lock()
        self.next_index = 0
        self.unspoken = 0  # indices given to sentences that were reported, not spoken
        self.audio_s = 0.0
        self.last_queued: _Sentence | None = None  # for next_framing
        self.frame_carry = g711.FrameCarry()
        self.started_at = time.perf_counter()
        # For the "session end" record (docs/monitoring.md): from the first text to the first
        # audio frame, sentences cancelled, and how the session ended.
        self.first_text_at: float | None = None
        self.first_sound_at: float | None = None
        self.dropped = 0
        self.bad_frames = 0
        self.ended: Literal["close", "hang-up", "idle", "stalled", "drained", "error"] = "hang-up"
        self.shutting_down = False  # the server is draining and told this session to go
        # Progress: the last client message or audio the client accepted (idle expiry), and
        # since when a write has been waiting for a client that does not read.
        self.last_progress = self.started_at
        self.writing_since: float | None = None
        self.playback = PlaybackClock()  # supplies each sentence's deadline
        self.closing = False  # `close` was read: only `cancel` is still taken
        self.gone = False  # ended or the peer left: counts for nothing any more
        # Admission counts a session from the moment it is admitted, before it speaks, so a
        # burst of new sessions cannot all pass the check while none is speaking yet. The
        # hold ends with the first text, a cancel, close, or after admission_hold_s.
        self.held_until = self.started_at + settings.admission_hold_s
        self._receiver: asyncio.Task[None] | None = None

    # ---- public -------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve the session until `close` completes, the peer leaves, or it idles out."""
        self._log("session start")
        try:
            async with asyncio.TaskGroup() as group:
                self._receiver = group.create_task(self._receive_stage(), name=f"recv-{self.id}")
                group.create_task(self._synthesize_stage(), name=f"synth-{self.id}")
                group.create_task(self._send_stage(), name=f"send-{self.id}")
        except* TransportClosed:
            self.gone = True
            self.generation += 1  # whatever is still in a worker thread gets discarded
        except* Exception:
            self.ended = "error"
            raise
        finally:
            self.gone = True
            self.service.drop(self)  # a hang-up frees the engine now, not after the sentence
            self._log_end()

    def _log_end(self) -> None:
        first_sound = None
        if self.first_text_at is not None and self.first_sound_at is not None:
            first_sound = round((self.first_sound_at - self.first_text_at) * 1000, 1)
        self._log(
            "session end",
            sentences=self.next_index,
            audio_s=round(self.audio_s, 3),
            seconds=round(time.perf_counter() - self.started_at, 3),
            first_sound_ms=first_sound,
            unspoken=self.unspoken,
            dropped=self.dropped,
            bad_frames=self.bad_frames,
            ended=self.ended,
        )

    @property
    def speaking(self) -> bool:
        """Whether this session still needs synthesis."""
        return not self.gone and (self.pending > 0 or self._buffered_chars > 0)

    @property
    def _buffered_chars(self) -> int:
        return self.markdown.buffered_chars + self.segmenter.buffered_chars

    @property
    def starting(self) -> bool:
        """Admitted, about to speak or speaking, and no sentence of it sent yet."""
        return self.next_index == 0 and self.demanding

    @property
    def demanding(self) -> bool:
        """Whether admission control counts this session: speaking, or admitted and about to
        speak (held); a cancelled, finished or departed one stops counting at once, and so
        does one whose client has not accepted audio for a while (it asks nothing of
        synthesis until it reads again, and is aborted after send_stall_s)."""
        if self.gone or self.blocked_s() > _BLOCKED_UNCOUNTED_S:
            return False
        return self.speaking or time.perf_counter() < self.held_until

    def quiet_s(self) -> float:
        """How long nothing has been in flight: no text or audio pending, no write waiting,
        no message or accepted audio (0 while anything is)."""
        if self.speaking or self.writing_since is not None:
            return 0.0
        return time.perf_counter() - self.last_progress

    async def shut_down(self) -> None:
        """The server is draining (drain.py): tell the client to reconnect, then close."""
        self.shutting_down = True
        self.ended = "drained"
        with contextlib.suppress(TransportClosed):
            await self._send_control(
                protocol.error(
                    "shutting_down",
                    "the server is shutting down; reconnect to go on",
                    fatal=True,
                )
            )
        await self.transport.close(1012, "server shutting down")

    def blocked_s(self) -> float:
        """How long the write in progress has waited for the client to read (0: none)."""
        since = self.writing_since
        return 0.0 if since is None else time.perf_counter() - since

    # ---- receive ------------------------------------------------------------------------

    async def _receive_stage(self) -> None:
        while True:
            payload = await self._receive_or_idle()
            self.last_progress = time.perf_counter()
            try:
                obj = protocol.decode_frame(payload, self.settings.max_frame_bytes)
                msg = protocol.parse_message(obj, self.settings.max_text_chars)
                if self.closing:
                    await self._after_close(msg)
                else:
                    await self._handle(msg)
            except ProtocolError as exc:
                self._bad_frame(exc)
                await self._send_control(protocol.error(exc.code, exc.message))
            # Frames already queued are taken without the loop ever running: a client that
            # sends thousands of tiny deltas at once would hold it (pings, every other
            # session) for the whole backlog. One frame per loop turn.
            await asyncio.sleep(0)

    def _bad_frame(self, exc: ProtocolError) -> None:
        """One log line for each of a session's first bad frames, none after (a client
        looping on a mistake must not flood the log); the count is in "session end"."""
        self.bad_frames += 1
        if self.bad_frames < _LOGGED_BAD_FRAMES:
            self._log("bad frame", code=exc.code, reason=exc.message)
        elif self.bad_frames == _LOGGED_BAD_FRAMES:
            self._log(
                "bad frame (later ones are counted, not logged)", code=exc.code, reason=exc.message
            )

    async def _receive_or_idle(self) -> str | bytes:
        """The next frame; the session ends once neither a message came nor audio was
        accepted for idle_timeout_s (text still pending or not)."""
        while True:
            left = self.last_progress + self.settings.idle_timeout_s - time.perf_counter()
            try:
                return await asyncio.wait_for(self.transport.receive(), timeout=max(left, 0.0))
            except TimeoutError:
                if self.last_progress + self.settings.idle_timeout_s > time.perf_counter():
                    continue  # audio went out meanwhile: the client is listening, not idle
                self.ended = "idle"
                await self._send_control(
                    protocol.error(
                        "idle_timeout",
                        f"no message for {self.settings.idle_timeout_s:g} s; session closed",
                        fatal=True,
                    )
                )
                await self.transport.close(1000, "idle timeout")
                raise TransportClosed("idle timeout") from None

    async def _after_close(self, msg: ClientMessage) -> None:
        """After `close` only `cancel` is taken (barge-in on an answer the client had
        finished sending); anything else is refused, never silently dropped."""
        if msg.type == ClientType.CANCEL:
            await self._cancel()
            return
        raise ProtocolError(
            "session_closing",
            f"'{msg.type}' after close is not taken: the session is ending (only cancel is)",
        )

    async def _handle(self, msg: ClientMessage) -> None:
        """Apply one valid message."""
        if msg.type == ClientType.START:
            await self._check_voice(msg.options.voice)
            merged = _merge(self.defaults, msg.options)
            protocol.check_combination(merged)  # before anything changes: refused whole
            if msg.lexicon is not None:
                self.lexicon = await self._lexicon(msg.lexicon)
            self.defaults = merged
            self.request_id = msg.request_id or self.request_id
            if msg.emoji is not None:
                self.markdown.emoji = msg.emoji
            if msg.pause_scale is not None:
                self.pause_scale = msg.pause_scale
            if msg.word_timestamps is not None:
                await self._want_word_timestamps(msg.word_timestamps)
            return
        if msg.type in (ClientType.TEXT, UTTERANCE):
            await self._accept_text(msg)
            if msg.type == UTTERANCE:
                self._enqueue_flush()
            return
        if msg.type == ClientType.FLUSH:
            self._enqueue_flush()
            return
        if msg.type == ClientType.CANCEL:
            await self._cancel()
            return
        # close: everything buffered is synthesized and sent, then session_end.
        self.closing = True
        self.held_until = 0.0
        self._enqueue_flush(marker="close")

    async def _accept_text(self, msg: ClientMessage) -> None:
        await self._check_voice(msg.options.voice)
        buffered = self._buffered_chars + len(msg.text)
        if buffered > self.settings.max_buffered_chars:
            raise ProtocolError(
                "text_too_long",
                f"{buffered} unsentenced chars would exceed {self.settings.max_buffered_chars}; "
                "send sentence punctuation or a flush",
            )
        if self.pending >= self.settings.max_queued_sentences:
            raise ProtocolError(
                "queue_full",
                f"{self.pending} sentences already queued (limit "
                f"{self.settings.max_queued_sentences}); wait for audio before sending more",
            )
        # A sentence is spoken with the voice and speed of the message that completed it.
        options = _merge(self.defaults, msg.options)
        if self.first_text_at is None and msg.text.strip():
            self.first_text_at = time.perf_counter()
        self.utterance.received(msg.text)
        plain = self.markdown.feed(msg.text, _language(options))
        for piece in self.segmenter.feed(plain):
            self._enqueue_sentence(piece, options)
        self.tail_options = options
        self.held_until = 0.0  # its text says from now on whether it is speaking

    async def _check_voice(self, voice: str | None) -> None:
        if voice is None:
            return
        engine = await self.service.wait_ready()
        try:
            engine.check_voice(voice)
        except UnknownVoiceError as exc:
            raise ProtocolError("unknown_voice", str(exc)) from exc
        except VoiceSpecError as exc:  # a malformed blend
            raise ProtocolError("bad_parameter", str(exc)) from exc

    async def _lexicon(self, entries: dict[str, str]) -> Lexicon:
        engine = await self.service.wait_ready()
        try:
            return Lexicon(entries, engine.vocab, "lexicon")
        except PronunciationError as exc:
            raise ProtocolError("bad_parameter", str(exc)) from exc

    async def _want_word_timestamps(self, wanted: bool) -> None:
        engine = await self.service.wait_ready()
        self.word_timestamps = wanted and engine.word_timestamps
        if wanted and not engine.word_timestamps:
            raise ProtocolError(
                "word_timestamps_unavailable",
                f"this model gives no word timestamps ({engine.durations_missing}); "
                "audio is sent without them",
            )

    def _enqueue_sentence(self, piece: Piece, options: Options) -> None:
        assert options.voice and options.speed and options.format
        self.pending += 1
        self.utterance.sentences += 1
        sentence = _Sentence(
            str(piece),
            options.voice,
            options.speed,
            options.format,
            protocol.effective_rate(options),
            self.generation,
            frame_ms=options.frame_ms or 0,
            ending=piece.ending,
        )
        if self.last_queued is not None:
            self.last_queued.next_framing = sentence.framing
        self.last_queued = sentence
        self.inbox.put_nowait(sentence)

    def _enqueue_flush(self, marker: Literal["flush", "close"] = "flush") -> None:
        options = self.tail_options or self.defaults
        for piece in self.segmenter.feed(self.markdown.flush(_language(options))):
            self._enqueue_sentence(piece, options)
        for piece in self.segmenter.flush():
            self._enqueue_sentence(piece, options)
        if self.utterance.unspoken:
            # Text came, but markup, emoji and control characters were all of it.
            self.inbox.put_nowait(_Notice(self.utterance.text, self.generation))
        self.utterance = _Utterance()
        self.tail_options = None
        self.last_queued = None  # a flush ends the stream of frames: pad, do not carry
        self.inbox.put_nowait(_Marker(marker, self.generation))

    async def _cancel(self) -> None:
        async with self.send_lock:
            self.segmenter.reset()
            self.markdown.reset()
            self.utterance = _Utterance()
            self.tail_options = None
            dropped = self.pending
            self.dropped += dropped
            self.pending = 0
            self.generation += 1
            self.last_queued = None
            self.playback.reset()  # the listener stopped: the next sentence is due at once
            self.held_until = 0.0  # stops counting for admission at once
            self.service.drop(self)  # queued jobs leave, the running model call stops
            await self._write_text(protocol.cancelled(dropped))
        self._log("cancelled", dropped=dropped)

    # ---- synthesize ---------------------------------------------------------------------

    async def _synthesize_stage(self) -> None:
        while True:
            item = await self.inbox.get()
            closing = isinstance(item, _Marker) and item.kind == "close"
            if item.generation != self.generation and not closing:
                continue  # dropped by a cancel (a cancel after close still ends the session)
            if isinstance(item, _Notice):
                await self.outbox.put((item, None))
                continue
            if isinstance(item, _Marker):
                # Only a failed sentence can leave a tail here: its audio has no window left.
                self.frame_carry.tail = b""
                await self.outbox.put((item, None))
                if item.kind == "close":
                    return
                continue
            result: Synthesized | _Failed
            try:
                result = await self.service.synthesize(
                    item.text,
                    item.voice,
                    item.speed,
                    item.format,
                    item.sample_rate,
                    self.lexicon,
                    ending=item.ending,
                    pause_scale=self.pause_scale,
                    deadline=self.playback.deadline(time.perf_counter()),
                    owner=self,
                )
            except Dropped:
                continue  # a cancel removed it from the queue
            except UnknownVoiceError as exc:
                result = _Failed("unknown_voice", str(exc))
            except VoiceSpecError as exc:
                result = _Failed("bad_parameter", str(exc))
            except PronunciationError as exc:  # bad inline markup in this sentence
                result = _Failed("bad_parameter", str(exc))
            except Exception as exc:
                log.exception(
                    "synthesis failed", extra=fields(session=self.id, text=item.text[:80])
                )
                result = _Failed("internal", f"synthesis failed: {type(exc).__name__}")
            if isinstance(result, Synthesized) and result.duration_s <= 0:
                result = _Failed("nothing_to_say", "nothing in this sentence can be spoken")
            if isinstance(result, Synthesized) and item.frame_ms:
                result = self._cut_frames(item, result)
            if item.generation == self.generation:
                if isinstance(result, Synthesized):
                    self.playback.queued(time.perf_counter(), result.duration_s)
                await self.outbox.put((item, result))

    def _cut_frames(self, item: _Sentence, result: Synthesized) -> Synthesized:
        """Fixed G.711 frames; the remainder rides with the next sentence if one is queued."""
        size = g711.frame_bytes(item.frame_ms)
        more = item.next_framing is not None and item.next_framing == item.framing
        data = self.frame_carry.cut(item.framing, result.data, size, item.format, more)
        return dataclasses.replace(result, data=data, frame_sizes=(size,) * (len(data) // size))

    # ---- send ---------------------------------------------------------------------------

    async def _send_stage(self) -> None:
        while True:
            item, result = await self.outbox.get()
            if isinstance(item, _Notice):
                await self._send_control(
                    protocol.error("nothing_to_say", _NOTHING, sentence=item.text), item.generation
                )
                continue
            if isinstance(item, _Marker):
                if item.kind == "flush":
                    await self._send_control(protocol.flushed(), item.generation)
                    continue
                await self._send_control(
                    protocol.session_end(self.next_index - self.unspoken, round(self.audio_s, 3))
                )
                self.gone = True
                self.ended = "close"
                if self._receiver is not None:
                    self._receiver.cancel()  # nothing more is read once session_end went out
                await self.transport.close(1000, "session end")
                return
            assert result is not None
            if isinstance(result, _Failed):
                await self._send_failure(item, result)
                continue
            await self._send_sentence(item, result)

    async def _send_failure(self, item: _Sentence, failed: _Failed) -> None:
        """A sentence that will not be spoken: its own index, and its text, in the error."""
        async with self.send_lock:
            if item.generation != self.generation:
                return
            self.pending -= 1
            index = self.next_index
            self.next_index += 1
            self.unspoken += 1
            await self._write_text(
                protocol.error(failed.code, failed.message, index=index, sentence=item.text)
            )
        self._log("sentence not spoken", index=index, code=failed.code, text=item.text[:80])

    async def _send_sentence(self, item: _Sentence, result: Synthesized) -> None:
        async with self.send_lock:
            if item.generation != self.generation:
                return
            index = self.next_index
            self.next_index += 1
            await self._write_text(
                protocol.sentence_start(index, written(item.text), item.format, item.sample_rate)
            )
            if self.word_timestamps:
                await self._write_text(_words_message(index, result))
        first_byte_at: float | None = None
        step = self.settings.audio_frame_bytes
        for chunk in audio.frames(result.data, result.frame_sizes, step):
            # The lock is taken per frame so a cancel can cut in between frames.
            async with self.send_lock:
                if item.generation != self.generation:
                    return
                await self._write_bytes(chunk)
            first_byte_at = first_byte_at or time.perf_counter()
            self.first_sound_at = self.first_sound_at or first_byte_at
            # A write that fits the socket buffer never yields: without this, a whole
            # sentence went out before a pending cancel or disconnect was even read.
            await asyncio.sleep(0)
        async with self.send_lock:
            if item.generation != self.generation:
                return
            self.pending -= 1
            self.audio_s += result.duration_s
            await self._write_text(
                protocol.synthesis_complete(
                    index, len(result.data), result.duration_s, result.synth_ms
                )
            )
        now = time.perf_counter()
        self._log(
            "sentence sent",
            index=index,
            chars=len(item.text),
            queue_wait_ms=round((result.started_at - item.queued_at) * 1000, 1),
            queue_to_first_byte_ms=round(((first_byte_at or now) - item.queued_at) * 1000, 1),
            synth_ms=result.synth_ms,
            encode_ms=result.encode_ms,
            audio_s=result.duration_s,
            rtf=round(result.synth_ms / 1000 / result.duration_s, 3) if result.duration_s else None,
            lead_cut_ms=result.lead_cut_ms,
            pause_ms=result.pause_ms,
            ending=item.ending,
            bytes=len(result.data),
        )

    # ---- writing ------------------------------------------------------------------------

    async def _send_control(self, text: str, generation: int | None = None) -> None:
        async with self.send_lock:
            if generation is None or generation == self.generation:
                await self._write_text(text)

    async def _write_text(self, text: str) -> None:
        await self._write(self.transport.send_text(text))

    async def _write_bytes(self, data: bytes) -> None:
        await self._write(self.transport.send_bytes(data))

    async def _write(self, sending: Coroutine[object, object, None]) -> None:
        """One write, which waits while the client's buffers are full. A client that
        accepts nothing for send_stall_s is dropped: its slot and its sentences free."""
        self.writing_since = time.perf_counter()
        try:
            await asyncio.wait_for(sending, self.settings.send_stall_s)
        except TransportClosed:
            raise
        except TimeoutError:
            self.ended = "stalled"
            log.warning(
                "session stalled",
                extra=fields(
                    session=self.id,
                    request_id=self.request_id,
                    reason=f"the client accepted no audio for {self.settings.send_stall_s:g} s",
                    pending=self.pending,
                ),
            )
            self.transport.abort()
            raise TransportClosed("client stopped reading") from None
        except Exception as exc:  # the socket died under us
            raise TransportClosed(str(exc)) from exc
        finally:
            self.writing_since = None
        self.last_progress = time.perf_counter()

    def _log(self, msg: str, **values: object) -> None:
        log.info(msg, extra=fields(session=self.id, request_id=self.request_id, **values))


def _words_message(index: int, result: Synthesized) -> str:
    if result.words is None:  # the model stopped giving durations that match its audio
        return protocol.error(
            "word_timestamps_unavailable", f"no word timestamps for sentence {index}"
        )
    return protocol.words(index, [w.as_dict() for w in result.words])


def _language(options: Options) -> str:
    """The language markdown notices are read in (the voice's; English if it names none)."""
    return LANGUAGES.get((options.voice or "a")[:1], "en-us")


def _merge(base: Options, override: Options) -> Options:
    return Options(
        voice=override.voice or base.voice,
        speed=override.speed if override.speed is not None else base.speed,
        format=override.format or base.format,
        sample_rate=override.sample_rate or base.sample_rate,
        frame_ms=override.frame_ms if override.frame_ms is not None else base.frame_ms,
    )

"""A session's receive stage: parses frames, answers bad ones with non-fatal errors, feeds
text to the sentence path (sentences.py) and queues each sentence the moment it is complete.

It reads until the session ends, also after `close`: a `cancel` that follows `close` (an
agent whose LLM had finished when the caller barged in) drops what is still queued and
stops the sentence in progress. It takes one frame per loop turn, so a flood of tiny frames
cannot hold the loop, and ends the session once neither a message came nor audio was
accepted for `idle_timeout_s`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Hashable
from typing import Literal

from kokoro_server.config import Settings
from kokoro_server.serving import protocol
from kokoro_server.serving.checks import check_voice, lexicon_of
from kokoro_server.serving.messages import ClientType
from kokoro_server.serving.protocol import UTTERANCE, ClientMessage, Options, ProtocolError
from kokoro_server.serving.scheduler import PlaybackClock
from kokoro_server.serving.sentences import Sentences, language_of
from kokoro_server.serving.session_items import (
    Marker,
    Notice,
    Sentence,
    SessionOptions,
    Utterance,
    Work,
    merge,
)
from kokoro_server.serving.session_record import Liveness, SessionRecord
from kokoro_server.serving.session_writer import TransportClosed, Writer
from kokoro_server.serving.synthesis import SynthesisService
from kokoro_server.text.segmenter import Piece


class Receiver:
    def __init__(
        self,
        settings: Settings,
        service: SynthesisService,
        writer: Writer,
        playback: PlaybackClock,
        owner: Hashable,
        options: SessionOptions,
    ) -> None:
        self.settings = settings
        self.service = service
        self.writer = writer
        self.record: SessionRecord = writer.record
        self.live: Liveness = writer.live
        self.playback = playback
        self.owner = owner  # whose jobs a cancel drops from the service
        self.options = options
        self.sentences = Sentences(settings, first_clause=True)
        self.utterance = Utterance()
        # Options of the last text message, for the tail that a flush releases.
        self.tail_options: Options | None = None
        self.last_queued: Sentence | None = None  # for next_framing
        self.inbox: asyncio.Queue[Work] = asyncio.Queue()
        self.closing = False  # `close` was read: only `cancel` is still taken

    async def run(self) -> None:
        while True:
            payload = await self._receive_or_idle()
            self.live.progressed()
            try:
                obj = protocol.decode_frame(payload, self.settings.max_frame_bytes)
                msg = protocol.parse_message(obj, self.settings.max_text_chars)
                if self.closing:
                    await self._after_close(msg)
                else:
                    await self._handle(msg)
            except ProtocolError as exc:
                self.record.bad_frame(exc.code, exc.message)
                await self.writer.send_control(protocol.error(exc.code, exc.message))
            # Frames already queued are taken without the loop ever running: a client that
            # sends thousands of tiny deltas at once would hold it (pings, every other
            # session) for the whole backlog. One frame per loop turn.
            await asyncio.sleep(0)

    async def _receive_or_idle(self) -> str | bytes:
        """The next frame; the session ends once neither a message came nor audio was
        accepted for idle_timeout_s (text still pending or not)."""
        idle_s = self.settings.idle_timeout_s
        transport = self.writer.transport
        while True:
            left = self.live.last_progress + idle_s - time.perf_counter()
            try:
                return await asyncio.wait_for(transport.receive(), timeout=max(left, 0.0))
            except TimeoutError:
                if self.live.last_progress + idle_s > time.perf_counter():
                    continue  # audio went out meanwhile: the client is listening, not idle
                self.record.ended = "idle"
                await self.writer.send_control(
                    protocol.error(
                        "idle_timeout", f"no message for {idle_s:g} s; session closed", fatal=True
                    )
                )
                await transport.close(1000, "idle timeout")
                raise TransportClosed("idle timeout") from None

    async def _after_close(self, msg: ClientMessage) -> None:
        """After `close` only `cancel` is taken (barge-in on an answer the client had
        finished sending); anything else is refused, never silently dropped."""
        if msg.type == ClientType.CANCEL:
            await self.cancel()
            return
        raise ProtocolError(
            "session_closing",
            f"'{msg.type}' after close is not taken: the session is ending (only cancel is)",
        )

    async def _handle(self, msg: ClientMessage) -> None:
        """Apply one valid message."""
        if msg.type == ClientType.START:
            await self._start(msg)
        elif msg.type in (ClientType.TEXT, UTTERANCE):
            await self._accept_text(msg)
            if msg.type == UTTERANCE:
                self._enqueue_flush()
        elif msg.type == ClientType.FLUSH:
            self._enqueue_flush()
        elif msg.type == ClientType.CANCEL:
            await self.cancel()
        else:  # close: everything buffered is synthesized and sent, then session_end.
            self.closing = True
            self.live.held_until = 0.0
            self._enqueue_flush(marker="close")

    async def _start(self, msg: ClientMessage) -> None:
        engine = await self.service.wait_ready()
        if msg.options.voice is not None:
            check_voice(engine, msg.options.voice)
        merged = merge(self.options.defaults, msg.options)
        protocol.check_combination(merged)  # before anything changes: refused whole
        if msg.lexicon is not None:
            self.options.lexicon = lexicon_of(engine, msg.lexicon)
        self.options.defaults = merged
        self.record.request_id = msg.request_id or self.record.request_id
        if msg.emoji is not None:
            self.sentences.markdown.emoji = msg.emoji
        if msg.pause_scale is not None:
            self.options.pause_scale = msg.pause_scale
        if msg.word_timestamps is not None:
            self.options.word_timestamps = msg.word_timestamps and engine.word_timestamps
            if msg.word_timestamps and not engine.word_timestamps:
                raise ProtocolError(
                    "word_timestamps_unavailable",
                    f"this model gives no word timestamps ({engine.durations_missing}); "
                    "audio is sent without them",
                )

    async def _accept_text(self, msg: ClientMessage) -> None:
        if msg.options.voice is not None:
            check_voice(await self.service.wait_ready(), msg.options.voice)
        self._check_room(len(msg.text))
        # A sentence is spoken with the voice and speed of the message that completed it.
        options = merge(self.options.defaults, msg.options)
        if self.record.first_text_at is None and msg.text.strip():
            self.record.first_text_at = time.perf_counter()
        self.utterance.received(msg.text)
        for piece in self.sentences.feed(msg.text, language_of(options.voice)):
            self._enqueue_sentence(piece, options)
        self.tail_options = options
        self.live.held_until = 0.0  # its text says from now on whether it is speaking

    def _check_room(self, chars: int) -> None:
        buffered = self.sentences.buffered_chars + chars
        limit = self.settings.max_buffered_chars
        if buffered > limit:
            raise ProtocolError(
                "text_too_long",
                f"{buffered} unsentenced chars would exceed {limit}; "
                "send sentence punctuation or a flush",
            )
        pending, most = self.record.pending, self.settings.max_queued_sentences
        if pending >= most:
            raise ProtocolError(
                "queue_full",
                f"{pending} sentences already queued (limit "
                f"{most}); wait for audio before sending more",
            )

    def _enqueue_sentence(self, piece: Piece, options: Options) -> None:
        assert options.voice and options.speed and options.format
        self.record.pending += 1
        self.utterance.sentences += 1
        sentence = Sentence(
            str(piece),
            options.voice,
            options.speed,
            options.format,
            protocol.effective_rate(options),
            self.writer.generation,
            frame_ms=options.frame_ms or 0,
            ending=piece.ending,
        )
        if self.last_queued is not None:
            self.last_queued.next_framing = sentence.framing
        self.last_queued = sentence
        self.inbox.put_nowait(sentence)

    def _enqueue_flush(self, marker: Literal["flush", "close"] = "flush") -> None:
        options = self.tail_options or self.options.defaults
        for piece in self.sentences.flush(language_of(options.voice)):
            self._enqueue_sentence(piece, options)
        generation = self.writer.generation
        if self.utterance.unspoken:
            # Text came, but markup, emoji and control characters were all of it.
            self.inbox.put_nowait(Notice(self.utterance.text, generation))
        self._forget_utterance()
        self.inbox.put_nowait(Marker(marker, generation))

    def _forget_utterance(self) -> None:
        self.utterance = Utterance()
        self.tail_options = None
        self.last_queued = None  # a flush ends the stream of frames: pad, do not carry

    async def cancel(self) -> None:
        async with self.writer.lock:
            self.sentences.reset()
            self._forget_utterance()
            dropped = self.record.pending
            self.record.dropped += dropped
            self.record.pending = 0
            self.writer.generation += 1
            self.playback.reset()  # the listener stopped: the next sentence is due at once
            self.live.held_until = 0.0  # stops counting for admission at once
            self.service.drop(self.owner)  # queued jobs leave, the running model call stops
            await self.writer.write_text(protocol.cancelled(dropped))
        self.record.log("cancelled", dropped=dropped)

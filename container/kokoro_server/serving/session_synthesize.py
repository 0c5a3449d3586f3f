"""A session's synthesize stage: runs the model off the event loop, one sentence at a time,
in order. Each sentence carries its playback deadline (scheduler.PlaybackClock): the
service's scheduler serves the sentence whose listener runs out of audio first, across all
sessions. Finished audio waits for the sender in a small outbox."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Hashable

from kokoro_server.audio import g711
from kokoro_server.logs import fields
from kokoro_server.model_facts import UnknownVoiceError, VoiceSpecError
from kokoro_server.serving.scheduler import PlaybackClock
from kokoro_server.serving.session_items import (
    Done,
    Failed,
    Marker,
    Notice,
    Sentence,
    SessionOptions,
    Work,
)
from kokoro_server.serving.session_writer import Writer
from kokoro_server.serving.synthesis import Dropped, SynthesisService, Synthesized
from kokoro_server.text.pronunciation import PronunciationError

log = logging.getLogger("kokoro.session")


@dataclasses.dataclass(eq=False)
class Synthesizer:
    service: SynthesisService
    inbox: asyncio.Queue[Work]
    writer: Writer
    options: SessionOptions
    playback: PlaybackClock  # supplies each sentence's deadline
    owner: Hashable  # whose jobs a cancel drops from the service
    # Small: finished audio waits for the sender in at most two slots, so synthesis never
    # runs far ahead of a slow client (and a cancel has little to throw away).
    outbox: asyncio.Queue[Done] = dataclasses.field(
        default_factory=lambda: asyncio.Queue(maxsize=2), init=False
    )
    frame_carry: g711.FrameCarry = dataclasses.field(default_factory=g711.FrameCarry, init=False)

    async def run(self) -> None:
        while True:
            item = await self.inbox.get()
            closing = isinstance(item, Marker) and item.kind == "close"
            if item.generation != self.writer.generation and not closing:
                continue  # dropped by a cancel (a cancel after close still ends the session)
            if isinstance(item, Notice):
                await self.outbox.put((item, None))
                continue
            if isinstance(item, Marker):
                # Only a failed sentence can leave a tail here: its audio has no window left.
                self.frame_carry.tail = b""
                await self.outbox.put((item, None))
                if closing:
                    return
                continue
            result = await self._synthesize(item)
            if result is not None and item.generation == self.writer.generation:
                if isinstance(result, Synthesized):
                    self.playback.queued(time.perf_counter(), result.duration_s)
                await self.outbox.put((item, result))

    async def _synthesize(self, item: Sentence) -> Synthesized | Failed | None:
        """The sentence's audio, or why it has none; None: a cancel dropped it."""
        result: Synthesized | Failed
        try:
            result = await self.service.synthesize(
                item.text,
                item.voice,
                item.speed,
                item.format,
                item.sample_rate,
                self.options.lexicon,
                ending=item.ending,
                pause_scale=self.options.pause_scale,
                deadline=self.playback.deadline(time.perf_counter()),
                owner=self.owner,
            )
        except Dropped:
            return None  # a cancel removed it from the queue
        except UnknownVoiceError as exc:
            return Failed("unknown_voice", str(exc))
        except (VoiceSpecError, PronunciationError) as exc:  # a bad blend, or inline markup
            return Failed("bad_parameter", str(exc))
        except Exception as exc:
            log.exception(
                "synthesis failed", extra=fields(session=self.writer.record.id, text=item.text[:80])
            )
            return Failed("internal", f"synthesis failed: {type(exc).__name__}")
        if result.duration_s <= 0:
            return Failed("nothing_to_say", "nothing in this sentence can be spoken")
        return self._cut_frames(item, result) if item.frame_ms else result

    def _cut_frames(self, item: Sentence, result: Synthesized) -> Synthesized:
        """Fixed G.711 frames; the remainder rides with the next sentence if one is queued."""
        size = g711.frame_bytes(item.frame_ms)
        more = item.next_framing is not None and item.next_framing == item.framing
        data = self.frame_carry.cut(item.framing, result.data, size, item.format, more)
        return dataclasses.replace(result, data=data, frame_sizes=(size,) * (len(data) // size))

"""A session's send stage: writes `sentence_start`, `words` (v1.1, when asked for), the audio
frames and `synthesis_complete` for each sentence, and `flushed` / `session_end` at their
place. Every write of a sentence checks its generation under the writer's lock, per frame,
so a cancel cuts in between frames and no audio of a dropped sentence follows `cancelled`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from kokoro_server.audio import encoding as audio
from kokoro_server.serving import protocol, session_items
from kokoro_server.serving.session_writer import Writer
from kokoro_server.serving.synthesis import Synthesized
from kokoro_server.text.pronunciation import written

_NOTHING = (
    "nothing to say: the text since the last flush held only markup, emoji, code or "
    "control characters (docs/protocol.md)"
)


class Sender:
    def __init__(
        self,
        outbox: asyncio.Queue[session_items.Done],
        writer: Writer,
        options: session_items.SessionOptions,
        frame_bytes: int,
        stop_receiving: Callable[[], None],
    ) -> None:
        self.outbox = outbox
        self.writer = writer
        self.record = writer.record
        self.options = options
        self.frame_bytes = frame_bytes
        self.stop_receiving = stop_receiving  # once session_end went out, nothing is read

    async def run(self) -> None:
        while True:
            item, result = await self.outbox.get()
            if isinstance(item, session_items.Notice):
                await self.writer.send_control(
                    protocol.error("nothing_to_say", _NOTHING, sentence=item.text), item.generation
                )
            elif isinstance(item, session_items.Marker) and item.kind == "flush":
                await self.writer.send_control(protocol.flushed(), item.generation)
            elif isinstance(item, session_items.Marker):
                await self._end_session()
                return
            elif isinstance(result, session_items.Failed):
                await self._send_failure(item, result)
            else:
                assert result is not None
                await self._send_sentence(item, result)

    async def _end_session(self) -> None:
        record = self.record
        await self.writer.send_control(
            protocol.session_end(record.next_index - record.unspoken, round(record.audio_s, 3))
        )
        self.writer.live.gone = True
        record.ended = "close"
        self.stop_receiving()
        await self.writer.transport.close(1000, "session end")

    async def _send_failure(
        self, item: session_items.Sentence, failed: session_items.Failed
    ) -> None:
        """A sentence that will not be spoken: its own index, and its text, in the error."""
        async with self.writer.lock:
            if item.generation != self.writer.generation:
                return
            self.record.pending -= 1
            index = self.record.next_index
            self.record.next_index += 1
            self.record.unspoken += 1
            await self.writer.write_text(
                protocol.error(failed.code, failed.message, index=index, sentence=item.text)
            )
        self.record.log("sentence not spoken", index=index, code=failed.code, text=item.text[:80])

    async def _send_sentence(self, item: session_items.Sentence, result: Synthesized) -> None:
        writer = self.writer
        async with writer.lock:
            if item.generation != writer.generation:
                return
            index = self.record.next_index
            self.record.next_index += 1
            await writer.write_text(
                protocol.sentence_start(index, written(item.text), item.format, item.sample_rate)
            )
            if self.options.word_timestamps:
                await writer.write_text(_words_message(index, result))
        sent, first_byte_at = await self._send_frames(item, result)
        if not sent:
            return  # a cancel cut in between frames
        async with writer.lock:
            if item.generation != writer.generation:
                return
            self.record.pending -= 1
            self.record.audio_s += result.duration_s
            await writer.write_text(
                protocol.synthesis_complete(
                    index, len(result.data), result.duration_s, result.synth_ms
                )
            )
        self._log_sent(index, item, result, first_byte_at or time.perf_counter())

    async def _send_frames(
        self, item: session_items.Sentence, result: Synthesized
    ) -> tuple[bool, float | None]:
        """The audio frames: whether all went out (not cut by a cancel), and when the first
        did (None: the sentence had none)."""
        first_byte_at: float | None = None
        for chunk in audio.frames(result.data, result.frame_sizes, self.frame_bytes):
            # The lock is taken per frame so a cancel can cut in between frames.
            async with self.writer.lock:
                if item.generation != self.writer.generation:
                    return False, first_byte_at
                await self.writer.write_bytes(chunk)
            first_byte_at = first_byte_at or time.perf_counter()
            self.record.first_sound_at = self.record.first_sound_at or first_byte_at
            # A write that fits the socket buffer never yields: without this, a whole
            # sentence went out before a pending cancel or disconnect was even read.
            await asyncio.sleep(0)
        return True, first_byte_at

    def _log_sent(
        self, index: int, item: session_items.Sentence, result: Synthesized, first_byte_at: float
    ) -> None:
        self.record.log(
            "sentence sent",
            index=index,
            chars=len(item.text),
            queue_wait_ms=round((result.started_at - item.queued_at) * 1000, 1),
            queue_to_first_byte_ms=round((first_byte_at - item.queued_at) * 1000, 1),
            synth_ms=result.synth_ms,
            encode_ms=result.encode_ms,
            audio_s=result.duration_s,
            rtf=round(result.synth_ms / 1000 / result.duration_s, 3) if result.duration_s else None,
            lead_cut_ms=result.lead_cut_ms,
            pause_ms=result.pause_ms,
            ending=item.ending,
            bytes=len(result.data),
        )


def _words_message(index: int, result: Synthesized) -> str:
    if result.words is None:  # the model stopped giving durations that match its audio
        return protocol.error(
            "word_timestamps_unavailable", f"no word timestamps for sentence {index}"
        )
    return protocol.words(index, [w.as_dict() for w in result.words])

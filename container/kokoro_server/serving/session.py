"""One bidirectional TTS session: protocol v1 over any message transport.

Three concurrent stages, joined by queues, so no stage waits on another's slow work:

    receive -> (sentences) -> inbox -> synthesize -> outbox -> send

- receive (session_receive.py): parses frames, feeds text to the sentence path and queues
  each sentence the moment it is complete.
- synthesize (session_synthesize.py): the model, one sentence at a time, by playback deadline.
- send (session_send.py): each sentence's messages and audio frames, and `flushed` /
  `session_end` at their place.

Barge-in uses a generation counter (session_writer.py). `cancel` bumps it under the send
lock, so every item of an older generation is dropped wherever it is, and the sender, which
checks the generation under the same lock before every frame, can never write audio of a
dropped sentence after `cancelled`. The sentence the model is working on is stopped too
(service.drop).

A session must progress or close: every write is bounded by `send_stall_s` (a client that
accepts no audio that long is aborted, and stops counting for admission after a second), and
it idles out once neither a message came nor audio was accepted for `idle_timeout_s`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from kokoro_server.config import Settings
from kokoro_server.serving import protocol
from kokoro_server.serving.protocol import Options
from kokoro_server.serving.scheduler import PlaybackClock
from kokoro_server.serving.session_items import SessionOptions
from kokoro_server.serving.session_receive import Receiver
from kokoro_server.serving.session_record import Liveness, SessionRecord
from kokoro_server.serving.session_send import Sender
from kokoro_server.serving.session_synthesize import Synthesizer
from kokoro_server.serving.session_writer import Transport, TransportClosed, Writer
from kokoro_server.serving.synthesis import SynthesisService

__all__ = ["Session", "Transport", "TransportClosed"]

# A write waiting this long for its client stops the session counting for admission.
_BLOCKED_UNCOUNTED_S = 1.0


class Session:
    def __init__(
        self,
        transport: Transport,
        service: SynthesisService,
        settings: Settings,
        default_voice: str,
    ) -> None:
        self.service = service
        self.record = SessionRecord()
        self.live = Liveness(held_until=self.record.started_at + settings.admission_hold_s)
        self.writer = Writer(transport, settings, self.record, self.live)
        options = SessionOptions(Options(voice=default_voice, speed=1.0, format="pcm", frame_ms=0))
        playback = PlaybackClock()
        self.receiver = Receiver(settings, service, self.writer, playback, self, options)
        self.synthesizer = Synthesizer(
            service, self.receiver.inbox, self.writer, options, playback, self
        )
        self.sender = Sender(
            self.synthesizer.outbox,
            self.writer,
            options,
            settings.audio_frame_bytes,
            self._stop_receiving,
        )
        self._receiving: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.record.id

    async def run(self) -> None:
        """Serve the session until `close` completes, the peer leaves, or it idles out."""
        self.record.log("session start")
        try:
            async with asyncio.TaskGroup() as group:
                self._receiving = group.create_task(self.receiver.run(), name=f"recv-{self.id}")
                group.create_task(self.synthesizer.run(), name=f"synth-{self.id}")
                group.create_task(self.sender.run(), name=f"send-{self.id}")
        except* TransportClosed:
            self.live.gone = True
            self.writer.generation += 1  # whatever is still in a worker thread gets discarded
        except* Exception:
            self.record.ended = "error"
            raise
        finally:
            self.live.gone = True
            self.service.drop(self)  # a hang-up frees the engine now, not after the sentence
            self.record.log_end()

    def _stop_receiving(self) -> None:
        if self._receiving is not None:
            self._receiving.cancel()

    @property
    def speaking(self) -> bool:
        """Whether this session still needs synthesis."""
        buffered = self.receiver.sentences.buffered_chars
        return not self.live.gone and (self.record.pending > 0 or buffered > 0)

    @property
    def starting(self) -> bool:
        """Admitted, about to speak or speaking, and no sentence of it sent yet."""
        return self.record.next_index == 0 and self.demanding

    @property
    def demanding(self) -> bool:
        """Whether admission control counts this session: speaking, or admitted and about to
        speak (held); a cancelled, finished or departed one stops counting at once, and so
        does one whose client has not accepted audio for a while (it asks nothing of
        synthesis until it reads again, and is aborted after send_stall_s)."""
        if self.live.gone or self.live.blocked_s() > _BLOCKED_UNCOUNTED_S:
            return False
        return self.speaking or self.live.held()

    @property
    def shutting_down(self) -> bool:
        return self.live.shutting_down

    def blocked_s(self) -> float:
        """How long the write in progress has waited for the client to read (0: none)."""
        return self.live.blocked_s()

    def quiet_s(self) -> float:
        """How long nothing has been in flight: no text or audio pending, no write waiting,
        no message or accepted audio (0 while anything is)."""
        if self.speaking or self.live.writing_since is not None:
            return 0.0
        return time.perf_counter() - self.live.last_progress

    async def shut_down(self) -> None:
        """The server is draining (drain.py): tell the client to reconnect, then close."""
        self.live.shutting_down = True
        self.record.ended = "drained"
        with contextlib.suppress(TransportClosed):
            await self.writer.send_control(
                protocol.error(
                    "shutting_down",
                    "the server is shutting down; reconnect to go on",
                    fatal=True,
                )
            )
        await self.writer.transport.close(1012, "server shutting down")

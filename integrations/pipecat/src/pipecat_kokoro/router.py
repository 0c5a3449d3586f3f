"""Maps one Kokoro session's ordered stream onto Pipecat's audio contexts (no Pipecat here).

The protocol carries no request ids: the server answers strictly in the order it received
text, and `flush` / `cancel` are answered at their place in that order. So the client keeps
a FIFO of turns (one per Pipecat context id):

- Text goes to the server only for the oldest turn that is not yet flushed; text of a later
  turn (a TTSSpeakFrame in the middle of an LLM reply) waits here, so the server's segmenter
  never joins the tail of one turn to the head of the next.
- Every sentence belongs to the head turn; its `flushed` closes that turn.
- After a `cancel`, everything up to the server's `cancelled` belongs to dropped turns.
- A turn interrupted while another must keep playing (an uninterruptible context) cannot be
  cancelled on the server (that would drop the other turn too): it is flushed and its audio is
  discarded here as it arrives.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from kokoro_stream import (
    DEFAULT_SAMPLE_RATE,
    SERVER_SAMPLE_RATES,
    TtsAudio,
    TtsControl,
    TtsEvent,
    TtsProtocolError,
    TtsWords,
    control_message,
    start_message,
    text_message,
)
from kokoro_stream.messages import BYTES_PER_SAMPLE
from kokoro_stream.spacing import spaced_words

ProtocolViolation = TtsProtocolError
Message = dict[str, object]

Options = tuple[str | None, float | None]  # (voice, speed); None: the server's default


@dataclass
class Turn:
    context_id: str
    options: Options = (None, None)
    unsent: list[str] = field(default_factory=list)  # text waiting for earlier turns
    sent_text: bool = False
    flush_requested: bool = False
    flush_sent: bool = False
    discard: bool = False
    audio_s: float = 0.0  # audio of this turn so far, the offset of its next sentence's words


@dataclass
class _Sentence:
    index: int
    turn: Turn | None  # None: a sentence of a dropped turn
    sample_rate: int
    text: str = ""
    received: int = 0


# What the receive loop must do in Pipecat, in order.
@dataclass(frozen=True)
class PlayAudio:
    context_id: str
    data: bytes
    sample_rate: int


@dataclass(frozen=True)
class PlayWords:
    """Words with the spacing the written text has before each (Pipecat adds none)."""

    context_id: str
    words: list[tuple[str, float]]  # (text, seconds from the start of the turn's audio)


@dataclass(frozen=True)
class TurnFinished:
    context_id: str


@dataclass(frozen=True)
class ServerError:
    """The server's `error`; a non-fatal one about a sentence carries its index and text."""

    code: str
    message: str
    fatal: bool
    index: int | None = None
    text: str | None = None


Action = PlayAudio | PlayWords | TurnFinished | ServerError


class TurnRouter:
    """One per session. `sample_rate` is what the server is asked for; voice and speed go
    out in a `start` before the first text of a turn whose options differ from the last."""

    def __init__(
        self,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
        *,
        word_timestamps: bool = True,
        session_options: Options | None = None,
    ):
        """`session_options`: what the session was opened with (its first `start`); None
        when no `start` went out yet."""
        self._sample_rate = sample_rate
        self._word_timestamps = word_timestamps
        self._session_options = session_options  # None: no `start` sent yet
        self._turns: deque[Turn] = deque()
        self._cancels_pending = 0
        self._sentence: _Sentence | None = None

    # ---- what the client sends ------------------------------------------------------------

    def text(self, context_id: str, text: str, options: Options = (None, None)) -> list[Message]:
        """Accept text for a turn; returns the messages to send now (maybe none: it waits).
        `options` count when the turn starts (its first text)."""
        turn = self._open_turn(context_id, options)
        if self._is_sending(turn):
            return self._send_text(turn, [text])
        turn.unsent.append(text)
        return []

    def flush_all(self) -> list[Message]:
        """Flush every turn still open (the pipeline is ending)."""
        out: list[Message] = []
        for turn in list(self._turns):
            if not turn.flush_requested:
                out.extend(self.flush(turn.context_id))
        return out

    def flush(self, context_id: str) -> list[Message]:
        """The turn's text is complete; returns the messages to send now."""
        turn = self._find_open(context_id)
        if turn is None or turn.flush_requested:
            return []
        turn.flush_requested = True
        return self._advance()

    def interrupt(self, keep: set[str]) -> list[Message]:
        """Drop every turn except those in `keep`; returns the messages to send now."""
        dropped = [t for t in self._turns if t.context_id not in keep and not t.discard]
        if not dropped:
            return []
        if not any(t.context_id in keep for t in self._turns):
            # Nothing must keep playing: the server drops its buffer, queue and the sentence
            # in progress, and answers `cancelled` after the last byte of them.
            sent_anything = any(t.sent_text or t.flush_sent for t in self._turns)
            self._turns.clear()
            self._sentence = None
            if not sent_anything:
                return []
            self._cancels_pending += 1
            return [control_message("cancel")]
        for turn in dropped:
            turn.discard = True
            turn.unsent.clear()
            turn.flush_requested = True
        # Turns that never reached the server are simply forgotten.
        self._turns = deque(t for t in self._turns if not (t.discard and not t.sent_text))
        return self._advance()

    def drop(self, context_id: str) -> list[Message]:
        """Pipecat interrupted one context (`on_audio_context_interrupted`, called once per
        interruptible context): when no other turn is live, the server cancels everything."""
        live = {t.context_id for t in self._turns if not t.discard and t.context_id != context_id}
        return self.interrupt(keep=live)

    def connection_lost(self) -> list[str]:
        """The session is gone: forget everything; returns the turns that were still live."""
        live = [t.context_id for t in self._turns if not t.discard]
        self._turns.clear()
        self._cancels_pending = 0
        self._sentence = None
        return live

    @property
    def sample_rate(self) -> int:
        """The rate the server was asked for."""
        return self._sample_rate

    @property
    def idle(self) -> bool:
        return not self._turns and self._cancels_pending == 0

    # ---- what the server sends ------------------------------------------------------------

    def receive(self, event: TtsEvent) -> list[Action]:
        """One decoded event (kokoro_stream's FrameDecoder checked its shape already)."""
        if isinstance(event, TtsAudio):
            return self._audio(event.data)
        if isinstance(event, TtsWords):
            return self._words(event)
        if not isinstance(event, TtsControl):
            return []  # a TtsFailure is the service's to handle
        kind = event.type
        if kind == "sentence_start":
            return self._sentence_start(event)
        if kind == "synthesis_complete":
            return self._synthesis_complete(event)
        if kind == "flushed":
            return self._flushed()
        if kind == "cancelled":
            if self._cancels_pending == 0:
                raise ProtocolViolation("`cancelled` without a cancel")
            self._cancels_pending -= 1
            self._sentence = None
            return []
        if kind == "error":
            message = event.message
            index, text = message.get("index"), message.get("text")
            return [
                ServerError(
                    str(message.get("code", "unknown")),
                    str(message.get("message", "")),
                    bool(message.get("fatal", False)),
                    index if isinstance(index, int) else None,
                    text if isinstance(text, str) else None,
                )
            ]
        return []  # session_end, or a type from a newer protocol version

    def _sentence_start(self, event: TtsControl) -> list[Action]:
        message = event.message
        if self._sentence is not None and self._sentence.turn is not None:
            raise ProtocolViolation("sentence_start before the previous synthesis_complete")
        if message.get("format", "pcm") != "pcm":
            raise ProtocolViolation(f"asked for pcm, got {message.get('format')!r}")
        rate = message.get("sample_rate")
        if not isinstance(rate, int) or rate not in SERVER_SAMPLE_RATES:
            raise ProtocolViolation(f"unexpected sample_rate {rate!r}")
        turn = None if self._cancels_pending else self._head_turn()
        text = message.get("text")
        self._sentence = _Sentence(
            int(message.get("index", -1)), turn, rate, text if isinstance(text, str) else ""
        )
        return []

    def _words(self, event: TtsWords) -> list[Action]:
        sentence = self._sentence
        if sentence is None or sentence.turn is None or sentence.turn.discard:
            return []
        if event.index != sentence.index:
            raise ProtocolViolation(f"words for sentence {event.index}, not {sentence.index}")
        turn = sentence.turn
        texts = spaced_words(
            sentence.text, [w.text for w in event.words], continues=turn.audio_s > 0
        )
        offset = turn.audio_s
        timed = [(t, offset + w.start_ms / 1000.0) for t, w in zip(texts, event.words, strict=True)]
        return [PlayWords(turn.context_id, timed)]

    def _audio(self, data: bytes) -> list[Action]:
        sentence = self._sentence
        if sentence is None:
            if self._cancels_pending:
                return []  # the rest of a sentence the server cut after our cancel
            raise ProtocolViolation("audio before any sentence_start")
        sentence.received += len(data)
        if sentence.turn is None or sentence.turn.discard:
            return []
        return [PlayAudio(sentence.turn.context_id, data, sentence.sample_rate)]

    def _synthesis_complete(self, event: TtsControl) -> list[Action]:
        sentence, self._sentence = self._sentence, None
        if sentence is None:
            if self._cancels_pending:
                return []
            raise ProtocolViolation("synthesis_complete without sentence_start")
        reported = event.message.get("audio_bytes")
        if reported != sentence.received:
            raise ProtocolViolation(
                f"sentence {sentence.index}: server reported {reported} audio bytes, "
                f"{sentence.received} arrived"
            )
        if sentence.turn is not None:
            sentence.turn.audio_s += sentence.received / (BYTES_PER_SAMPLE * sentence.sample_rate)
        return []

    def _flushed(self) -> list[Action]:
        if self._cancels_pending:
            return []  # a flush answered before the server read our cancel
        if not self._turns or not self._turns[0].flush_sent:
            raise ProtocolViolation("`flushed` without a flush")
        turn = self._turns.popleft()
        return [] if turn.discard else [TurnFinished(turn.context_id)]

    # ---- FIFO ---------------------------------------------------------------------------

    def _head_turn(self) -> Turn | None:
        return self._turns[0] if self._turns else None

    def _find_open(self, context_id: str) -> Turn | None:
        for turn in reversed(self._turns):
            if turn.context_id == context_id and not turn.flush_requested:
                return turn
        return None

    def _open_turn(self, context_id: str, options: Options) -> Turn:
        turn = self._find_open(context_id)
        if turn is None:
            turn = Turn(context_id, options)
            self._turns.append(turn)
        return turn

    def _send_text(self, turn: Turn, texts: list[str]) -> list[Message]:
        out: list[Message] = []
        if not turn.sent_text and turn.options != self._session_options:
            voice, speed = turn.options
            out.append(start_message(voice, "pcm", self._sample_rate, self._word_timestamps, speed))
            self._session_options = turn.options
        out.extend(text_message(t) for t in texts)
        turn.sent_text = True
        return out

    def _is_sending(self, turn: Turn) -> bool:
        """Is `turn` the oldest turn whose flush has not gone out?"""
        return next((t for t in self._turns if not t.flush_sent), None) is turn

    def _advance(self) -> list[Message]:
        """Send flushes that are due, and the waiting text of the turn that becomes current."""
        out: list[Message] = []
        for turn in self._turns:
            if turn.flush_sent:
                continue
            if turn.unsent:
                out.extend(self._send_text(turn, turn.unsent))
                turn.unsent = []
            if not turn.flush_requested:
                break
            if turn.sent_text:
                out.append(control_message("flush"))
                turn.flush_sent = True
        # A turn that was flushed with no text at all has nothing to wait for.
        self._turns = deque(
            t for t in self._turns if not (t.flush_requested and not t.sent_text and not t.unsent)
        )
        return out

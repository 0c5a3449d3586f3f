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
    SERVER_SAMPLE_RATES,
    Cancelled,
    Flushed,
    SentenceStart,
    ServerError,
    SessionOptions,
    SynthesisComplete,
    TtsAudio,
    TtsEvent,
    TtsProtocolError,
    TtsWords,
    control_message,
    text_message,
)
from kokoro_stream.messages import BYTES_PER_SAMPLE
from kokoro_stream.spacing import spaced_words

ProtocolViolation = TtsProtocolError
Message = dict[str, object]

# What a session of the service asks for when nothing else is said: pcm, words on.
DEFAULT_OPTIONS = SessionOptions(word_timestamps=True)


@dataclass
class Turn:
    context_id: str
    options: SessionOptions  # its voice and speed; a `start` precedes it when they change
    unsent: list[str] = field(default_factory=list)  # text waiting for earlier turns
    sent_text: bool = False
    flush_requested: bool = False
    flush_sent: bool = False
    discard: bool = False
    audio_s: float = 0.0  # audio of this turn so far, the offset of its next sentence's words


@dataclass
class _Sentence:
    start: SentenceStart
    turn: Turn | None  # None: a sentence of a dropped turn
    sample_rate: int
    received: int = 0  # audio bytes so far


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


# A server `error` is passed on as kokoro_stream's `ServerError` (code, message, fatal, and
# for a sentence it could not speak, its index and text).
Action = PlayAudio | PlayWords | TurnFinished | ServerError


class TurnRouter:
    """One per session. A turn's voice and speed (its `SessionOptions`) go out in a `start`
    before its first text when they differ from the last `start`'s."""

    def __init__(self, session: SessionOptions = DEFAULT_OPTIONS, *, opened: bool = False):
        """`session`: what the session asks for (format, sample rate, words) and the options
        of a turn given none; `opened`: the session was opened with them (its first `start`
        went out), else the first turn's text is preceded by one."""
        self._session = session
        self._last_start = session if opened else None
        self._turns: deque[Turn] = deque()
        self._cancels_pending = 0
        self._sentence: _Sentence | None = None

    # ---- what the client sends ------------------------------------------------------------

    def text(
        self, context_id: str, text: str, options: SessionOptions | None = None
    ) -> list[Message]:
        """Accept text for a turn; returns the messages to send now (maybe none: it waits).
        `options` (None: the session's) count when the turn starts (its first text)."""
        turn = self._open_turn(context_id, options or self._session)
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
        return self._session.sample_rate

    @property
    def idle(self) -> bool:
        return not self._turns and self._cancels_pending == 0

    # ---- what the server sends ------------------------------------------------------------

    def receive(self, event: TtsEvent) -> list[Action]:
        """One decoded event (kokoro_stream's FrameDecoder checked its shape already)."""
        match event:
            case TtsAudio():
                return self._audio(event.data)
            case TtsWords():
                return self._words(event)
            case SentenceStart():
                return self._sentence_start(event)
            case SynthesisComplete():
                return self._synthesis_complete(event)
            case Flushed():
                return self._flushed()
            case Cancelled():
                if self._cancels_pending == 0:
                    raise ProtocolViolation("`cancelled` without a cancel")
                self._cancels_pending -= 1
                self._sentence = None
                return []
            case ServerError():
                return [event]
        # session_end, a type from a newer protocol version; a TtsFailure is the service's.
        return []

    def _sentence_start(self, event: SentenceStart) -> list[Action]:
        if self._sentence is not None and self._sentence.turn is not None:
            raise ProtocolViolation("sentence_start before the previous synthesis_complete")
        if event.format not in (None, "pcm"):
            raise ProtocolViolation(f"asked for pcm, got {event.format!r}")
        rate = event.sample_rate
        if rate is None or rate not in SERVER_SAMPLE_RATES:
            raise ProtocolViolation(f"unexpected sample_rate {rate!r}")
        turn = None if self._cancels_pending else self._head_turn()
        self._sentence = _Sentence(event, turn, rate)
        return []

    def _words(self, event: TtsWords) -> list[Action]:
        sentence = self._sentence
        if sentence is None or sentence.turn is None or sentence.turn.discard:
            return []
        if event.index != sentence.start.index:
            raise ProtocolViolation(f"words for sentence {event.index}, not {sentence.start.index}")
        turn = sentence.turn
        texts = spaced_words(
            sentence.start.text, [w.text for w in event.words], continues=turn.audio_s > 0
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

    def _synthesis_complete(self, event: SynthesisComplete) -> list[Action]:
        sentence, self._sentence = self._sentence, None
        if sentence is None:
            if self._cancels_pending:
                return []
            raise ProtocolViolation("synthesis_complete without sentence_start")
        if event.audio_bytes != sentence.received:
            raise ProtocolViolation(
                f"sentence {sentence.start.index}: server reported {event.audio_bytes} audio "
                f"bytes, {sentence.received} arrived"
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

    def _open_turn(self, context_id: str, options: SessionOptions) -> Turn:
        turn = self._find_open(context_id)
        if turn is None:
            turn = Turn(context_id, options)
            self._turns.append(turn)
        return turn

    def _send_text(self, turn: Turn, texts: list[str]) -> list[Message]:
        out: list[Message] = []
        if not turn.sent_text and turn.options != self._last_start:
            out.append(turn.options.start_message())
            self._last_start = turn.options
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

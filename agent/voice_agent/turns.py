"""One turn of a conversation: the pipeline's answer, remembered as far as the caller heard it.

`answer_turn` runs while its caller holds the conversation (ConversationStore.using), so turns
of one conversation never interleave. Every event is recorded on the answer's timeline only
once the consumer asks for the next one, i.e. once it went out. When the answer ends, however
it ends, the turn is stored: complete, or cut at the `played_ms` the caller reported through
`Interruption` (/ws), or, without one, every sentence that reached the caller, and its
`turn end` log record is written (turn_log.py).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass

from .conversation import Conversation, ConversationKey, ConversationStore, Turn
from .events import AgentEvent, error_event, is_last
from .heard import AnswerTimeline
from .payload import Invocation
from .pipeline import VoicePipeline
from .turn_log import TurnRecord


@dataclass
class Interruption:
    """Set by /ws before it stops the relay: how much of this answer the caller played; the
    turn as remembered comes back in `turn`."""

    played_ms: float | None = None
    turn: Turn | None = None


async def answer_turn(
    pipeline: VoicePipeline,
    conversation: Conversation,
    inv: Invocation,
    interruption: Interruption | None = None,
) -> AsyncGenerator[AgentEvent, None]:
    if inv.interrupted_ms is not None and conversation.cut_last(inv.interrupted_ms) is None:
        yield error_event(
            "bad_request",
            "'interrupted' refers to the previous answer, but this conversation has none "
            "(name it with session_id; it may also have been evicted)",
        )
        return
    interruption = interruption or Interruption()
    timeline = AnswerTimeline()
    record = TurnRecord(inv.mode)
    events = pipeline.run(inv, conversation.history())
    try:
        async for event in events:
            yield event
            timeline.observe(event)  # the consumer came back for more: this one went out
            record.observe(event)
            if is_last(event):
                break  # remembered now; the TTS session's clean-up need not be waited for
    finally:
        interruption.turn = conversation.record(inv.prompt, timeline, interruption.played_ms)
        record.log()  # however the turn ended: the `turn end` record (turn_log.py)
        await events.aclose()  # stops the LLM and the TTS now, not when collected


async def cut_previous(
    conversations: ConversationStore, key: ConversationKey, played_ms: float
) -> Turn | None:
    """The caller heard only `played_ms` of the last answer of `key`'s conversation (an
    interrupt that came after that answer ended): cut it. None: there is no such answer."""
    if conversations.peek(key) is None:
        return None
    async with conversations.using(key) as conversation:
        return conversation.cut_last(played_ms)

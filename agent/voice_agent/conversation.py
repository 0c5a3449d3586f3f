"""Conversations in memory: bounded in turns and in number, keyed by who is talking.

A conversation is keyed by the AgentCore runtime session id (the
`X-Amzn-Bedrock-AgentCore-Runtime-Session-Id` header, which the SDK hands the handlers as
`context.session_id`) together with the payload's `session_id`, so a caller can never name a
conversation of another runtime session. Each conversation keeps its last `max_turns` turns;
the store keeps at most `max_conversations`, evicting the least recently used idle one.

A turn holds what the caller **heard** of the answer: the sentences that reached it, cut at
`played_ms` when the caller interrupted (heard.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from .heard import AnswerTimeline

ConversationKey = tuple[str | None, str]  # (runtime session id, conversation id)


@dataclass(frozen=True)
class Turn:
    prompt: str
    answer: str  # what the caller heard of the answer
    interrupted: bool  # the caller did not hear all of a complete answer


@dataclass(frozen=True)
class History:
    """What a text source sees of the conversation before this turn."""

    turns: tuple[Turn, ...] = ()
    number: int = 0  # this turn's 0-based number in the conversation (older turns included)


NO_HISTORY = History()


@dataclass
class Conversation:
    key: ConversationKey | None  # None: a one-off answer that nothing refers to again
    max_turns: int
    turns: deque[Turn] = field(init=False)
    count: int = 0  # turns recorded, including those the window has dropped
    # The last answer's timeline, so a later `interrupted` can cut it again (SSE), and where
    # it was cut so far (None: not cut): a later cut can only cut further.
    last_timeline: AnswerTimeline | None = None
    last_cut_ms: float | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one answer at a time
    users: int = 0  # answers running or waiting for the lock: never evicted meanwhile

    def __post_init__(self) -> None:
        self.turns = deque(maxlen=self.max_turns)

    def history(self) -> History:
        return History(tuple(self.turns), self.count)

    def record(self, prompt: str, timeline: AnswerTimeline, played_ms: float | None) -> Turn:
        """Store the answer just given, as far as the caller heard it."""
        heard = timeline.heard(played_ms)
        turn = Turn(prompt, heard.text, interrupted=not heard.everything)
        self.turns.append(turn)
        self.count += 1
        self.last_timeline = timeline
        self.last_cut_ms = played_ms
        return turn

    def cut_last(self, played_ms: float) -> Turn | None:
        """The caller says it heard only `played_ms` of the last answer: cut that turn."""
        if not self.turns or self.last_timeline is None:
            return None
        if self.last_cut_ms is not None:  # a word once cut never comes back
            played_ms = min(played_ms, self.last_cut_ms)
        self.last_cut_ms = played_ms
        heard = self.last_timeline.heard(played_ms)
        previous = self.turns[-1]
        turn = Turn(previous.prompt, heard.text, interrupted=not heard.everything)
        self.turns[-1] = turn
        return turn


class ConversationStore:
    """At most `max_conversations` conversations, least recently used evicted first."""

    def __init__(self, max_conversations: int, max_turns: int) -> None:
        if max_conversations < 1 or max_turns < 1:
            raise ValueError("a conversation store needs max_conversations and max_turns >= 1")
        self.max_conversations = max_conversations
        self.max_turns = max_turns
        self._live: OrderedDict[ConversationKey, Conversation] = OrderedDict()

    def __len__(self) -> int:
        return len(self._live)

    @contextlib.asynccontextmanager
    async def using(self, key: ConversationKey | None) -> AsyncIterator[Conversation]:
        """The conversation for `key`, held for one answer: answers to one conversation run
        one after another, in the order they came. None: a one-off conversation."""
        conversation = self._get(key)
        conversation.users += 1
        self._evict()
        try:
            async with conversation.lock:
                yield conversation
        finally:
            conversation.users -= 1

    def _get(self, key: ConversationKey | None) -> Conversation:
        """The conversation for `key` (new if unknown or evicted); None: a one-off one."""
        if key is None:
            return Conversation(None, self.max_turns)
        conversation = self._live.get(key)
        if conversation is None:
            conversation = self._live[key] = Conversation(key, self.max_turns)
        self._live.move_to_end(key)
        return conversation

    def peek(self, key: ConversationKey) -> Conversation | None:
        return self._live.get(key)

    def drop(self, key: ConversationKey) -> None:
        self._live.pop(key, None)

    def _evict(self) -> None:
        # A conversation in use is kept: the store may exceed its bound by the number of
        # answers running at once rather than lose what one of them is recording.
        for key in list(self._live):
            if len(self._live) <= self.max_conversations:
                return
            if self._live[key].users == 0:
                del self._live[key]

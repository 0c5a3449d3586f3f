"""Conversations in memory: turns recorded as heard, the turn window, LRU eviction of idle
conversations, one answer at a time per conversation, and how turns reach the LLM."""

from __future__ import annotations

import asyncio

import pytest

from voice_agent.conversation import Conversation, ConversationStore, History, Turn
from voice_agent.events import done_event, sentence_event
from voice_agent.heard import AnswerTimeline
from voice_agent.llm import (
    INTERRUPTED_NOTE,
    NOTHING_HEARD_NOTE,
    ScriptedConversationSource,
    strands_messages,
)


def spoken(*sentences: str, complete: bool = True) -> AnswerTimeline:
    """A timeline of sentences of 1 s each, without word timestamps."""
    t = AnswerTimeline()
    for i, text in enumerate(sentences):
        t.observe(sentence_event(i, text, 1000.0 * i))
    if complete:
        t.observe(done_event({"audio_seconds": float(len(sentences))}))
    return t


def test_record_keeps_what_was_heard_and_a_later_cut_shortens_it() -> None:
    c = Conversation(("rt", "a"), max_turns=5)
    turn = c.record("Where is it?", spoken("It shipped.", "It arrives Monday."), None)
    assert turn == Turn("Where is it?", "It shipped. It arrives Monday.", interrupted=False)
    # The caller says (next request) it heard only 1.5 s of that answer.
    assert c.cut_last(1500) == Turn("Where is it?", "It shipped.", interrupted=True)
    assert c.history() == History((Turn("Where is it?", "It shipped.", True),), 1)
    # A later cut only cuts further: one that reaches the end brings no word back.
    assert c.cut_last(5000) == Turn("Where is it?", "It shipped.", interrupted=True)
    assert c.cut_last(0) == Turn("Where is it?", "", interrupted=True)
    assert c.cut_last(1500) == Turn("Where is it?", "", interrupted=True)


def test_a_first_cut_that_reaches_the_end_keeps_a_complete_answer_whole() -> None:
    c = Conversation(("rt", "a"), max_turns=5)
    c.record("Where is it?", spoken("It shipped.", "It arrives Monday."), None)
    assert c.cut_last(5000) == Turn("Where is it?", "It shipped. It arrives Monday.", False)


def test_an_answer_that_ended_early_is_interrupted_even_unheard() -> None:
    c = Conversation(None, max_turns=5)
    assert c.cut_last(100) is None  # nothing to cut yet
    turn = c.record("Hi?", spoken(complete=False), None)
    assert turn == Turn("Hi?", "", interrupted=True)


def test_the_window_keeps_the_last_turns_and_counts_them_all() -> None:
    c = Conversation(("rt", "a"), max_turns=2)
    for n in range(5):
        c.record(f"q{n}", spoken(f"a{n}."), None)
    history = c.history()
    assert [t.prompt for t in history.turns] == ["q3", "q4"]
    assert history.number == 5


async def test_the_least_recently_used_idle_conversation_is_evicted() -> None:
    store = ConversationStore(max_conversations=2, max_turns=3)
    for key in [(None, "a"), (None, "b"), (None, "a"), (None, "c")]:
        async with store.using(key) as conversation:
            conversation.record("q", spoken("x."), None)
    assert store.peek((None, "b")) is None  # least recently used
    assert store.peek((None, "a")) is not None and store.peek((None, "c")) is not None
    async with store.using((None, "b")) as fresh:
        assert fresh.history() == History()  # evicted: it starts over
    assert len(store) == 2


async def test_a_conversation_in_use_is_never_evicted() -> None:
    store = ConversationStore(max_conversations=1, max_turns=3)
    async with store.using((None, "busy")) as busy:
        async with store.using((None, "other")):
            assert len(store) == 2  # over the bound while both answers run
        busy.record("q", spoken("kept."), None)
    async with store.using((None, "third")):
        pass
    assert store.peek((None, "busy")) is None and len(store) == 1


async def test_one_off_conversations_are_not_stored() -> None:
    store = ConversationStore(max_conversations=3, max_turns=3)
    async with store.using(None) as conversation:
        conversation.record("q", spoken("x."), None)
    assert len(store) == 0


async def test_answers_to_one_conversation_run_one_after_another_in_order() -> None:
    store = ConversationStore(max_conversations=3, max_turns=10)
    order: list[str] = []

    async def answer(name: str, delay: float) -> None:
        async with store.using((None, "same")) as conversation:
            order.append(f"{name} starts after {len(conversation.history().turns)} turns")
            await asyncio.sleep(delay)
            conversation.record(name, spoken(f"{name}."), None)

    first = asyncio.create_task(answer("first", 0.05))
    await asyncio.sleep(0)  # the first one holds the conversation
    await asyncio.gather(first, answer("second", 0))
    assert order == ["first starts after 0 turns", "second starts after 1 turns"]


def test_store_bounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_conversations and max_turns >= 1"):
        ConversationStore(0, 3)


def test_turns_become_bedrock_messages_with_interruptions_marked() -> None:
    turns = [
        Turn("Where is my order?", "It shipped.", interrupted=True),
        Turn("And the invoice?", "", interrupted=True),
        Turn("Thanks.", "You are welcome.", interrupted=False),
    ]
    assert strands_messages(turns) == [
        {"role": "user", "content": [{"text": "Where is my order?"}]},
        {"role": "assistant", "content": [{"text": f"It shipped. {INTERRUPTED_NOTE}"}]},
        {"role": "user", "content": [{"text": "And the invoice?"}]},
        {"role": "assistant", "content": [{"text": NOTHING_HEARD_NOTE}]},
        {"role": "user", "content": [{"text": "Thanks."}]},
        {"role": "assistant", "content": [{"text": "You are welcome."}]},
    ]


async def test_a_scripted_conversation_answers_turn_k_with_answer_k() -> None:
    source = ScriptedConversationSource(["One.", "Two."], tokens_per_s=1000)

    async def answer(number: int) -> str:
        return "".join([d async for d in source.stream("ignored", History((), number))])

    assert [await answer(n) for n in range(3)] == ["One.", "Two.", "One."]
    assert source.describe().startswith("ScriptedConversationSource (replays a script of 2")
    with pytest.raises(ValueError, match="at least one non-empty answer"):
        ScriptedConversationSource(["One.", " "])

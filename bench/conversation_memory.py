"""What the agent's conversations cost in memory when every bound is reached.

The store is filled exactly as the agent fills it: `max_conversations` conversations (the
settings' defaults unless given), each with `max_turns` turns recorded through
`Conversation.record` from the events an answer delivers (sentence and words events, so each
conversation also holds its last answer's timeline, as the agent does for a later cut). Every
prompt is as long as the payload allows (8000 characters); answers have the lengths given.
Python's own allocation tracker (tracemalloc) measures what the filled store holds.

Text costs 1 byte per character in CPython when it is all ASCII, 2 for most CJK text and 4
once a single character lies outside the Basic Multilingual Plane (an emoji in a prompt), so
each size is measured in those three forms.

    python -m bench.conversation_memory [--conversations N] [--turns N] [--answer-chars 1000,4000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import tracemalloc
from typing import Any

from bench.common import RESULTS_DIR, write_result
from bench.machine import machine_info
from bench.tables import Table, format_text
from voice_agent.conversation import ConversationStore
from voice_agent.events import done_event, sentence_event, words_event
from voice_agent.heard import AnswerTimeline
from voice_agent.payload import MAX_PROMPT_CHARS
from voice_agent.settings import AgentSettings

NAME = "conversation_memory"
# One character of each width CPython stores strings in, and a word of it.
ALPHABETS = {"ASCII (1 B/char)": "a", "CJK (2 B/char)": "会", "astral (4 B/char)": "😀"}
WORD_CHARS = 6  # a word and its space
SENTENCE_WORDS = 12


def text_of(alphabet: str, chars: int, salt: int) -> str:
    """`chars` characters of `alphabet`, words of 5 and a space, unique per `salt` (no
    string is shared between turns, as with real prompts)."""
    word = alphabet * (WORD_CHARS - 1)
    body = " ".join(itertools.repeat(word, chars // WORD_CHARS + 1))
    tag = f"{salt} "
    return (tag + body)[:chars]


def answer_events(answer: str) -> list[dict[str, Any]]:
    """The events an answer delivers: its sentences with word timings, then `done`."""
    words = answer.split(" ")
    events: list[dict[str, Any]] = []
    for index, start in enumerate(range(0, len(words), SENTENCE_WORDS)):
        chunk = words[start : start + SENTENCE_WORDS]
        offset = 4000.0 * index
        events.append(sentence_event(index, " ".join(chunk), offset))
        timed = [
            {"text": w, "start_ms": 300 * i, "end_ms": 300 * i + 250} for i, w in enumerate(chunk)
        ]
        events.append(words_event(index, offset, timed))
    events.append(done_event({"audio_seconds": 4.0 * len(events) / 2}))
    return events


async def fill_store(store: ConversationStore, turns: int, alphabet: str, chars: int) -> None:
    salt = itertools.count()
    for n in range(store.max_conversations):
        async with store.using((f"runtime-session-{n:036d}", "")) as conversation:
            for _ in range(turns):
                prompt = text_of(alphabet, MAX_PROMPT_CHARS, next(salt))
                timeline = AnswerTimeline()
                for event in answer_events(text_of(alphabet, chars, next(salt))):
                    timeline.observe(event)
                conversation.record(prompt, timeline, None)


def fill(conversations: int, turns: int, alphabet: str, answer_chars: int) -> int:
    """Bytes the filled store holds (tracemalloc, after a collection)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = ConversationStore(conversations, turns)
    asyncio.run(fill_store(store, turns, alphabet, answer_chars))
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert len(store) == conversations  # still referenced: measured while alive
    return held


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    defaults = AgentSettings()
    p = argparse.ArgumentParser(prog="python -m bench.conversation_memory", description=__doc__)
    p.add_argument("--conversations", type=int, default=defaults.max_conversations)
    p.add_argument("--turns", type=int, default=defaults.max_turns)
    p.add_argument("--answer-chars", default="1000,4000", help="comma-separated answer lengths")
    args = p.parse_args(argv)
    try:
        args.answer_chars = [int(v) for v in args.answer_chars.split(",") if v.strip()]
    except ValueError:
        p.error("--answer-chars takes comma-separated integers")
    if args.conversations < 1 or args.turns < 1 or not args.answer_chars:
        p.error("--conversations, --turns and --answer-chars must be at least 1")
    if min(args.answer_chars) < 1:
        p.error("--answer-chars must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows: list[dict[str, Any]] = []
    for answer_chars in args.answer_chars:
        for label, alphabet in ALPHABETS.items():
            held = fill(args.conversations, args.turns, alphabet, answer_chars)
            rows.append(
                {
                    "text": label,
                    "prompt_chars": MAX_PROMPT_CHARS,
                    "answer_chars": answer_chars,
                    "bytes": held,
                    "bytes_per_turn": held / (args.conversations * args.turns),
                }
            )
    title = (
        f"Conversation store filled: {args.conversations} conversations x {args.turns} turns, "
        f"prompts of {MAX_PROMPT_CHARS} characters"
    )
    table = Table(
        title,
        ["text", "answer chars", "total MiB", "KiB per turn"],
        [
            [
                r["text"],
                str(r["answer_chars"]),
                f"{r['bytes'] / 2**20:.1f}",
                f"{r['bytes_per_turn'] / 1024:.1f}",
            ]
            for r in rows
        ],
    )
    print(format_text(table))
    result = {
        "conversations": args.conversations,
        "turns": args.turns,
        "rows": rows,
        "machine": machine_info(),
    }
    print(f"\nresult: {write_result(RESULTS_DIR, NAME, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

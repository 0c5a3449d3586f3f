"""Letters said by their names, as espeak-ng needs them written.

espeak-ng reads a lone capital letter as its name ("U S" -> /juː ɛs/) except A, which it
reads as the article /ɐ/ whenever a word follows: "ten thirty A M" becomes "ten thirty uh
em". Written "eh", espeak-ng says the letter's name /eɪ/ in American and British English
alike (tests/container/test_letter_names.py checks it against the letter read alone). The
normalized text keeps "A"; only what the G2P reads changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kokoro_server.text.normalize.core import Written

LETTER_A = "eh"

# A capital A standing alone (not "A's", not joined by a hyphen): the letter or the article.
LONE_A = re.compile(r"(?<![\w'’-])A(?![\w'’-])")
_CLAUSE_START = re.compile(r"(?:^|[.!?:;\"“(\[—–])\s*$")
_NEXT_IS_LETTER = re.compile(r"\s+[A-Z](?![\w'’])")
_NEXT_IS_TITLE_WORD = re.compile(r"\s+[A-Z][a-z]")


def _written_a_is_letter(sentence: str, at: int) -> bool:
    """A capital A written alone: a letter after another word of its clause ("Plan A is",
    "the A team", "formula is A equals"), before another letter ("A B testing") or at the
    end; the article where a clause starts before a word ("A dog", "Note: A 10 kg bag") and
    before a capitalised word in title case ("Take A Look")."""
    after = sentence[at + 1 :]
    if _NEXT_IS_LETTER.match(after) or not after.strip() or after[:1] in ",.;:!?)'\"”":
        return True
    return not (_CLAUSE_START.search(sentence[:at]) or _NEXT_IS_TITLE_WORD.match(after))


def for_g2p(words: Sequence[Written]) -> list[str]:
    """The spoken words of one English sentence as espeak-ng must read them: a capital A
    that is a letter written so that it is said "ay". An A the normalizer wrote in place of
    something else (`a.m.` -> "A M", `A12` -> "A twelve") is always a letter; an A the
    writer wrote standing alone ("A", "Q&A") is decided by its context."""
    spoken = [w.spoken for w in words]
    if not any("A" in said for said in spoken):
        return spoken
    sentence = " ".join(spoken)
    out, cursor = [], 0
    for word, said in zip(words, spoken, strict=True):
        lone = LONE_A.search(word.text) is not None  # the writer's own A, not the normalizer's
        letters = [
            m.start()
            for m in LONE_A.finditer(said)
            if said != word.text or lone
            if not lone or _written_a_is_letter(sentence, cursor + m.start())
        ]
        for at in reversed(letters):
            said = said[:at] + LETTER_A + said[at + 1 :]
        out.append(said)
        cursor += len(word.spoken) + 1
    return out

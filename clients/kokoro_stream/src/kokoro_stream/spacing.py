"""Word spacing from the written text, not from the voice.

Kokoro's `words` carry each written word without the space before it. Frameworks join word
texts as given (Pipecat with `includes_inter_frame_spaces`, LiveKit's TimedString), so each
word gets the space the sentence has in front of it: an English sentence read by a Japanese
voice keeps its spaces, and a Japanese sentence stays unspaced whatever the voice.
"""

from __future__ import annotations

import unicodedata


def written_unspaced(char: str) -> bool:
    """Scripts written without spaces between words (CJK ideographs, kana, fullwidth forms)."""
    name = unicodedata.name(char, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "IDEOGRAPHIC", "FULLWIDTH")) or (
        "\u3000" <= char <= "\u303f"
    )


def spaced_words(sentence: str, words: list[str], *, continues: bool) -> list[str]:
    """`words` (in order, from `sentence`) each prefixed with a space where the sentence has
    whitespace before it. The first word gets one when the sentence `continues` a turn
    (follows an earlier sentence) and is not in an unspaced script. A word not found as
    written falls back to its script."""
    out: list[str] = []
    pos = 0
    for i, word in enumerate(words):
        found = sentence.find(word, pos) if word else -1
        if i == 0:
            space = continues and bool(word) and not written_unspaced(word[0])
            if found >= 0:
                pos = found + len(word)
        elif found >= 0:
            space = found > 0 and sentence[found - 1].isspace()
            pos = found + len(word)
        else:
            space = bool(word) and not written_unspaced(word[0])
        out.append(" " + word if space else word)
    return out

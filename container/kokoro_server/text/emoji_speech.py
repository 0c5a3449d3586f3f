"""Emoji in what is said: decorative ones dropped, word-like ones read, or all named.

Which sequences are emoji comes from the `emoji` package (Unicode's emoji data, maintained
upstream), not from a hand-written range list. The session option `emoji` (docs/protocol.md):

- "drop" (default): a decorative emoji is not read ("Great job 🎉" -> "Great job"). One is
  decorative at the end of a sentence or clause, before punctuation, after punctuation, in a
  run of emoji, or before a capital that starts the next sentence;
- "name": every emoji is read by its CLDR short name, without skin tones ("👍🏽" ->
  "thumbs up").

In both modes a lone emoji between two words of one sentence stands for a word and is read
(`emoji_as_word`): one of the common word-like emoji of `WORD_EMOJI` by its word ("I ❤️ this"
-> "I love this", "Swipe ⬅️ to delete" -> "Swipe left to delete"), any other by its short
name where the word before it needs a noun after it (an article, determiner, possessive or
number: "Tap the 🧭 icon" -> "Tap the compass icon"); after a number other than 1 the plural
is read ("4.8 ⭐" -> "4.8 stars"). An emoji after a noun it merely illustrates ("The café ☕
opens") stays decorative. A flag after a preposition names its place, whatever follows: a
preposition needs its object ("Heading to 🇫🇷 next week" -> "Heading to France next week",
"Flying to 🇺🇸!" -> "Flying to the United States!").

Either way, a keycap reads its digit ("1️⃣" -> "1"), and the few symbols Unicode also lists
as emoji but that are ordinary text (©, ®, ™, ‼, arrows) stay for the normalizer.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import emoji as emoji_data

EmojiMode = Literal["drop", "name"]
EMOJI_MODES: tuple[EmojiMode, ...] = ("drop", "name")

_SKIN_TONE = re.compile(r"_(?:light|medium-light|medium|medium-dark|dark)_skin_tone")
_SELECTORS = re.compile("[\ufe0e\ufe0f]")
_MODIFIERS = re.compile("[\ufe0e\ufe0f\U0001f3fb-\U0001f3ff]")

# Emoji commonly written in place of a word, with that word and its plural (after a number).
WORD_EMOJI: dict[str, tuple[str, str]] = {
    "❤": ("love", "love"), "♥": ("love", "love"), "💕": ("love", "love"),
    "⭐": ("star", "stars"), "🌟": ("star", "stars"), "⚙": ("gear", "gears"),
    "👍": ("thumbs up", "thumbs up"), "👎": ("thumbs down", "thumbs down"),
    "🔔": ("bell", "bells"), "🔕": ("muted bell", "muted bells"),
    "⬅": ("left", "left"), "➡": ("right", "right"), "⬆": ("up", "up"), "⬇": ("down", "down"),
    "🔍": ("search", "search"), "🔎": ("search", "search"), "🔒": ("lock", "locks"),
    "🔓": ("unlock", "unlock"), "🔑": ("key", "keys"), "🗑": ("trash", "trash"),
    "📎": ("paperclip", "paperclips"), "📌": ("pin", "pins"), "✏": ("pencil", "pencils"),
    "🏠": ("home", "homes"), "➕": ("plus", "plus"), "➖": ("minus", "minus"),
    "💰": ("money", "money"), "⏰": ("alarm", "alarms"), "📷": ("camera", "cameras"),
    "🎤": ("microphone", "microphones"), "📞": ("phone", "phones"), "📱": ("phone", "phones"),
    "✉": ("mail", "mail"), "📧": ("email", "emails"), "🔗": ("link", "links"),
}  # fmt: skip
# Words after which a noun must follow: an emoji there stands for that noun.
_NEEDS_NOUN = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "every",
        "each",
        "no",
        "some",
        "any",
        "one",
        "two",
        "three",
        "four",
        "five",
        "several",
        "many",
    ]
)
_NUMBER = re.compile(r"[0-9][0-9,.]*")
# Prepositions whose object a flag after them is: it names the place.
_PLACE_PREPOSITIONS = frozenset(
    {"to", "in", "from", "at", "into", "across", "around", "through", "throughout", "near",
     "via", "of", "for", "between", "within", "outside", "inside", "toward", "towards"}
)  # fmt: skip
_FLAG = re.compile("[\U0001f1e6-\U0001f1ff]{2}|\U0001f3f4[\U000e0020-\U000e007f]+")
# Place names said with "the" after a preposition ("to the United States").
_WITH_THE = re.compile(
    r"(?:United|European) .+|.+ (?:Islands|Republic|Emirates)"
    r"|Netherlands|Philippines|Bahamas|Gambia|Maldives|Seychelles"
)


def _short_name(data: dict[str, Any]) -> str:
    name = _SKIN_TONE.sub("", str(data.get("en", "")).strip(":"))
    return name.replace("_", " ").replace(":", "").strip()


def speak_emoji(text: str, mode: EmojiMode) -> str:
    """The text with each emoji dropped (a space) or replaced by its short name."""
    if not _might_hold_emoji(text):
        return text

    def replace(chars: str, data: dict[str, Any]) -> str:
        base = _SELECTORS.sub("", chars)
        if "\u20e3" in base:  # keycap: 1️⃣ reads "1"
            return base.replace("\u20e3", "")
        if len(base) == 1 and ord(base) < 0x2300:  # ©, ®, ™, ‼, ↔: text symbols
            return base
        if mode == "name":
            return f" {_short_name(data)} "
        return " "

    return _SELECTORS.sub("", emoji_data.replace_emoji(text, replace=replace))


# Every code point above U+00A8 that occurs in an emoji sequence of the package's data (the
# digits, "#" and "*" of keycaps are below it). Text without one holds no emoji: Japanese,
# Mandarin and Hindi text skip the emoji tokenizer, which cost most of their markdown time.
_EMOJI_CODE_POINTS = frozenset(
    ch for sequence in emoji_data.EMOJI_DATA for ch in sequence if ord(ch) >= 0xA9
)


def _might_hold_emoji(text: str) -> bool:
    """Cheap pre-check: whether text has a code point any emoji is made of."""
    return any(ch in _EMOJI_CODE_POINTS for ch in text if ord(ch) >= 0xA9)


def lone_emoji(text: str) -> bool:
    """Whether text is exactly one emoji that could stand for a word (no keycap, no text
    symbol such as © or an arrow the normalizer reads)."""
    if not _might_hold_emoji(text):
        return False
    found = emoji_data.emoji_list(text)
    if len(found) != 1 or found[0]["match_start"] != 0 or found[0]["match_end"] != len(text):
        return False
    base = _SELECTORS.sub("", text)
    return "\u20e3" not in base and not (len(base) == 1 and ord(base) < 0x2300)


def emoji_as_word(chars: str, previous: str, following: str) -> str | None:
    """What a lone emoji between the words `previous` and `following` of one sentence
    stands for, or None when it is decorative there (see the module docstring)."""
    base = _MODIFIERS.sub("", chars)
    if _FLAG.fullmatch(base) and previous.lower() in _PLACE_PREPOSITIONS:
        place = _short_name(emoji_data.EMOJI_DATA.get(base) or {})
        return f"the {place}" if _WITH_THE.fullmatch(place) else place or None
    if not following[:1].islower() and not following[:1].isdigit():
        return None  # nothing after it, punctuation, or the next sentence's capital
    counted = bool(_NUMBER.fullmatch(previous)) and previous != "1"
    if base in WORD_EMOJI:
        word, plural = WORD_EMOJI[base]
        return plural if counted else word
    if not counted and previous.lower() not in _NEEDS_NOUN:
        return None  # after a noun: it illustrates that noun
    name = _short_name(emoji_data.EMOJI_DATA.get(base) or emoji_data.EMOJI_DATA.get(chars) or {})
    if not name:
        return None
    if counted and re.fullmatch(r"[a-z]+[^sxyh]", name):
        return name + "s"
    return name

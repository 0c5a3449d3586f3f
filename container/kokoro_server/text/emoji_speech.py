"""Emoji in what is said: decorative ones dropped, or read by a short name.

Which sequences are emoji comes from the `emoji` package (Unicode's emoji data, maintained
upstream), not from a hand-written range list. The session option `emoji` (docs/protocol.md):

- "drop" (default): an emoji is not read ("Great job 🎉" -> "Great job");
- "name": its CLDR short name is read, without skin tones ("👍🏽" -> "thumbs up").

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


def _might_hold_emoji(text: str) -> bool:
    """Cheap pre-check: every emoji has a code point at or above U+00A9."""
    return any(ord(ch) >= 0xA9 for ch in text)

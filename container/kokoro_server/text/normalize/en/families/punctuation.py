"""English rules: dashes, ellipses, slashes and symbols read as pauses or words."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import SYMBOLS


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    return (
        rule("pause-dash", r"\s[–—]\s|(?<=[a-z])—(?=[a-z])", say.say_dash_pause, bounded=False),
        rule("ellipsis", r"(?<=\w)(?:…|\.\.\.)(?=\s+[a-z])", lambda m: ",", bounded=False),
        rule("slash-or", r"\s/\s", lambda m: ", ", bounded=False),
        rule(
            "symbol",
            r"(?<![\w])(?:&|\+|=|@|±|×|÷|∞|→|⇒|©|§)(?!\w\w)|~(?=\s?[$€£¥₹]?\d)|[™®†‡]",
            lambda m: f" {SYMBOLS[m[0]]} " if SYMBOLS[m[0]] else " ",
            bounded=False,
        ),
    )

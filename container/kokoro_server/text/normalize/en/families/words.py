"""English rules: abbreviations, initialisms and ampersands between capitals."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import ABBREVIATIONS


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    return (
        rule("initialism", r"(?:[A-Z]\.){2,}", say.say_initialism),
        rule("abbreviation", r"(?:" + say.alternatives(ABBREVIATIONS) + r")", say.say_abbreviation),
        rule("ampersand", r"(?P<a>[A-Z]+)&(?P<b>[A-Z]+)", say.say_ampersand),
    )

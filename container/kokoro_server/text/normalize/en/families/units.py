"""English rules: measures: percentages, temperatures, feet and inches, units,
multiplications, sizes."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    number_unit = (
        r"(?:(?<![\w.,])|(?<=\d[x×]))(?P<n>[-−]?(?:"
        + say.NUMBER
        + r"|\d+\s?\d+/\d+|\d+/\d+|\d*\s?[½⅓⅔¼¾⅛⅜⅝⅞]))"
        r"(?:\s(?P<big>thousand|million|billion))?"
    )
    return (
        rule("percent", r"(?P<n>[-−]?(?:" + say.NUMBER + r"))\s?%", b(say.say_percent)),
        rule(
            "temperature",
            r"(?P<n>[-−]?(?:" + say.NUMBER + r"))\s?°\s?(?P<scale>[CcFfK]\b)?",
            b(say.say_temperature),
        ),
        rule("feet-inches", r"(?P<ft>\d+)['′]\s?(?:(?P<inch>\d+)[\"″])?", say.say_feet_inches),
        rule(
            "measure",
            number_unit
            + r"(?:-|\s?)(?P<unit>"
            + say.UNIT
            + r")(?P<dot>(?<![.])\.(?=\s+[a-z]))?(?![\w/])",
            b(say.say_measure),
            bounded=False,
        ),
        rule(
            "multiply",
            r"(?<![\w.])(?P<a>"
            + say.NUMBER
            + r")(?:\s?[×x]\s?)(?=\$?\d)|(?<![\w.])(?P<a2>"
            + say.NUMBER
            + r")\s×(?=\s\$?\d)",
            b(say.say_multiply),
            bounded=False,
        ),
        rule("times", r"(?P<n>\d+(?:\.\d+)?)\s?(?P<x>[x×])", b(say.say_times)),
        rule("bare-bps", r"bps", say.say_bare_bps),
        rule(
            "size-range",
            r"(?P<a>[2-4]?X{0,3}[SML])[–-](?P<b>[2-4]?X{0,3}[SML])",
            say.say_size_range,
        ),
    )

"""English rules: clock times, time ranges and time zones."""

from __future__ import annotations

import re

from kokoro_server.text.normalize.core import START, Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import TIME_ZONES


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    return (
        rule(
            "clock-range-letters",
            r"(?P<h1>1[0-2]|0?[1-9])(?P<x>[ap])[–-](?P<h2>1[0-2]|0?[1-9])(?P<y>[ap])",
            b(say.say_clock_range_letters),
        ),
        rule(
            "named-time-range",
            START + r"(?P<a>noon|midnight)\s?[–-]\s?(?=\d)",
            say.say_named_time_range,
            bounded=False,
            flags=re.IGNORECASE,
        ),
        rule(
            "time-range",
            r"(?P<a>(?:[01]?\d|2[0-3])(?::[0-5]\d)?(?:\s?[AaPp]\.?[Mm]\b\.?)?)\s?[-–—]\s?"
            r"(?P<b>(?:[01]?\d|2[0-3])(?::[0-5]\d)?\s?[AaPp]\.?[Mm]\b\.?)",
            b(say.say_time_range),
        ),
        rule(
            "time",
            r"(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?::(?P<second>[0-5]\d))?"
            r"(?:\s?" + say.AMPM + ")?",
            b(say.say_time),
        ),
        rule("time-ampm", r"(?P<hour>1[0-2]|0?[1-9])(?P<minute>)\s?" + say.AMPM, b(say.say_time)),
        rule("time-zone", r"(?:" + say.alternatives(TIME_ZONES) + r")", say.say_time_zone),
    )

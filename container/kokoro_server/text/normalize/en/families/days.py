"""English rules: days of the week ("Mon.", "Tue/Thu", "M–F") and month abbreviations."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import DAY_ABBR, MONTH_ABBR


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules (the same in both English variants)."""
    return (
        rule("day", r"(?P<day>" + say.alternatives(DAY_ABBR) + r")\.", say.say_day),
        rule(
            "day-pair",
            r"(?:" + say.ANY_DAY + r")\.?(?:/(?:" + say.ANY_DAY + r")\.?)+",
            say.say_day_pair,
        ),
        rule("bare-day", r"(?P<day>" + say.alternatives(DAY_ABBR) + r")", say.say_bare_day),
        rule("weekday-span", r"M[–-]F", say.say_weekday_span),
        rule("short-day", r"(?P<d>Mo|Tu|We|Th|Fr|Sa|Su)(?=\s\d)", say.say_short_day),
        rule(
            "month-abbr",
            r"(?P<mon>" + say.alternatives(MONTH_ABBR) + r")\.(?=\s)",
            say.say_month_abbr,
        ),
    )

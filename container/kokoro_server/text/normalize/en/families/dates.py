"""English rules: dates (years alone: years.py; days and month names alone: days.py)."""

from __future__ import annotations

import re

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en import verbalize as v
from kokoro_server.text.normalize.en.context import preceding
from kokoro_server.text.normalize.en.tables import MONTH_ABBR, MONTHS


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    return (
        rule(
            "iso-date",
            r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})",
            lambda m: (
                v.date(int(m["mo"]), int(m["d"]), int(m["y"]), british, british)
                if 1 <= int(m["mo"]) <= 12
                else None
            ),
        ),
        rule(
            "numeric-date",
            r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4}|\d{2})",
            b(say.say_numeric_date),
        ),
        rule("month-year-numeric", r"(?P<a>\d{1,2})/(?P<y>\d{4})", b(say.say_month_year)),
        rule(
            "month-range",
            r"(?P<a>"
            + "|".join(MONTH_ABBR)
            + r")\.?\s?[–-]\s?(?P<b>"
            + "|".join(MONTH_ABBR)
            + r")\.?",
            say.say_month_range,
        ),
        rule(
            "month-day",
            say.MONTH + r"\s(?P<d>\d{1,2})(?:st|nd|rd|th)?"
            r"(?:\s?[–-]\s?(?P<d2>\d{1,2})(?:st|nd|rd|th)?(?!\d))?(?:,?\s(?P<y>\d{4}))?",
            b(say.say_month_day),
        ),
        rule(
            "day-month",
            r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s(?:of\s)?" + say.MONTH + r"(?:,?\s(?P<y>\d{4}))?",
            lambda m: (
                ("" if re.search(r"\bthe\s+$", preceding(m), re.I) else "the ")
                + v.date(
                    MONTHS.index(MONTH_ABBR.get(m["month"], m["month"])) + 1,
                    int(m["d"]),
                    int(m["y"]) if m["y"] else None,
                    True,
                    british,
                )
            ),
        ),
        rule(
            "month-year",
            say.MONTH + r"\s(?P<y>\d{4})",
            lambda m: f"{MONTH_ABBR.get(m['month'], m['month'])} {v.year(int(m['y']), british)}",
        ),
    )

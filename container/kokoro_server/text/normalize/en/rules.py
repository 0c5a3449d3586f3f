"""English rules: each family's table (families/), run in one order for the whole language.

Order matters: the first rule to claim a stretch of text wins it, so the most specific forms
(addresses, phone numbers, dates, times, prices) come before the general ones (a bare number).
The families interleave (a date before a time before a price before a bare year), so the
order is kept here, one name per rule, apart from the tables that define them.
"""

from __future__ import annotations

from functools import cache

from kokoro_server.text.normalize.core import Rule
from kokoro_server.text.normalize.en.families import (
    computing,
    dates,
    days,
    money,
    notation,
    numbers,
    places,
    punctuation,
    times,
    units,
    words,
    years,
)
from kokoro_server.text.normalize.en.say import END, START, say_address

FAMILIES = (
    computing,
    dates,
    years,
    days,
    times,
    money,
    units,
    numbers,
    places,
    words,
    notation,
    punctuation,
)

ORDER = (
    # Addresses, keys and code (technical.py), before anything can take their pieces.
    "email", "url", "ip", "keys",
    "e-notation", "number-power", "big-o", "caret-power", "function-of", "letter-pair",
    "code-operator", "compared-number", "arrow", "increment", "decrement", "not-prefix",
    "bang", "asterisk", "variable-a", "initials-ampersand",
    "protocol-version", "ipv", "x-version", "prefixed-year", "port", "port-number", "scheme",
    "extension", "state", "size-range", "clock-range-letters", "named-time-range", "dotfile",
    "file", "phone",
    # Dates, times and prices.
    "iso-date", "numeric-date", "month-year-numeric", "season", "house-number", "month-range",
    "month-day", "day-month", "month-year", "time-range", "time", "ratio", "time-ampm",
    "money-range", "money", "money-after", "cents",
    # Numbers with what they count or measure, then codes and bare numbers.
    "decade", "hex", "percent", "temperature", "feet-inches", "measure", "multiply", "times",
    "bc-ad", "short-year", "era-first", "version", "roman", "code-sequence", "alnum",
    "digit-groups", "code-number", "range-end-year", "range", "word-range", "mixed-fraction",
    "slash", "unicode-fraction", "ordinal", "before-number", "scaled", "year", "number",
    # Words: titles, days, months, abbreviations.
    "title", "direction", "day-pair", "day", "bare-day", "weekday-span", "short-day",
    "month-abbr", "initialism", "abbreviation", "bare-bps", "hash-code", "hashtag",
    "ampersand", "time-zone",
    # Notation and punctuation last: they only fill in what is left.
    "implicit-times", "power", "superscript", "sqrt", "greek", "comparison", "approx", "over",
    "pause-dash", "ellipsis", "slash-or", "symbol",
)  # fmt: skip


@cache
def rules(british: bool) -> tuple[Rule, ...]:
    """The English rules for one variant (US: month/day dates; British: day/month)."""
    by_name: dict[str, Rule] = {}
    for family in FAMILIES:
        for r in family.rules(british):
            if r.name in by_name:
                raise ValueError(f"two English rules are named {r.name!r}")
            by_name[r.name] = r
    if set(by_name) != set(ORDER) or len(ORDER) != len(set(ORDER)):
        raise ValueError(f"ORDER and the families differ on {sorted(set(by_name) ^ set(ORDER))}")
    return tuple(by_name[name] for name in ORDER)


__all__ = ["END", "FAMILIES", "ORDER", "START", "rules", "say_address"]

"""Shared by Japanese and Mandarin: big amounts in 万/億 (亿) units, the rules' shapes.

Both G2Ps read Arabic digits in their own language ("300" -> さんびゃく, 三百), so the
normalizers keep digits and rewrite what surrounds them: currency symbols become the
currency's name after the amount, times "10:30" become "10時30分" / "10点30分", slash
and ISO dates the year-month-day form, the dash of a range the word for "to" (から, 到).
The frontend reads each rewritten stretch with the language's G2P and names it by the
written text.
"""

from __future__ import annotations

import re
from decimal import Decimal

from kokoro_server.text.normalize.core import Rule, Say

SCALES = {
    "k": Decimal(10**3),
    "K": Decimal(10**3),
    "M": Decimal(10**6),
    "m": Decimal(10**6),
    "mn": Decimal(10**6),
    "B": Decimal(10**9),
    "bn": Decimal(10**9),
    "T": Decimal(10**12),
}
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# Where a number may start: not inside a longer one. Unbounded rules start with it, so a long
# run of digits is scanned once, not once from every digit.
NUMBER_START = r"(?<![\d.,])"
# The dash or wave dash between the two ends of a range ("9–12", "10時～18時", "2万〜3万").
# A plain hyphen is left alone: it also joins the parts of dates, phone and part numbers.
RANGE_DASH = r"\s?[–~～〜]\s?"
_SCALE = r"(?:\s?(?P<scale>bn|mn|[kKMBT])\b)?"


def amount(text: str, scale: str | None, man: str, oku: str) -> str:
    """'2.5', 'bn' -> '25億'; '3', 'k' -> '3000'; '1,200' -> '1200'."""
    digits = text.replace(",", "")
    if len(digits) > 15:  # past what a price says (and Decimal's precision): left as written
        return digits
    value = Decimal(digits)
    if scale:
        value *= SCALES[scale]
    if value >= 10**8 and value % 10**6 == 0:
        return _plain(value / 10**8) + oku
    if value >= 10**4 and value % 100 == 0 and scale:
        return _plain(value / 10**4) + man
    return _plain(value)


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _symbols(symbols: dict[str, str]) -> str:
    return "|".join(re.escape(k) for k in sorted(symbols, key=len, reverse=True))


def currency_pattern(symbols: dict[str, str]) -> str:
    keys = _symbols(symbols)
    return (
        r"(?P<cur>"
        + keys
        + r")\s?(?P<amount>"
        + NUMBER
        + r")"
        + _SCALE
        + r"|"
        + NUMBER_START
        + r"(?P<amount2>"
        + NUMBER
        + r")"
        + _SCALE.replace("<scale>", "<scale2>")
        + r"\s?(?P<code>"
        + keys
        + r")"
    )


def currency_range_pattern(symbols: dict[str, str]) -> str:
    """'¥5000–8000', '$2–3M', '€10–€20': one symbol (or one per end) before a range."""
    return (
        r"(?P<cur>"
        + _symbols(symbols)
        + r")\s?(?P<low>"
        + NUMBER
        + r")"
        + RANGE_DASH
        + r"(?:(?P=cur)\s?)?(?P<high>"
        + NUMBER
        + r")"
        + _SCALE
    )


def unbounded_rule(name: str, pattern: str, say: Say) -> Rule:
    """A rule with no word boundaries (neither language writes spaces between words)."""
    return Rule(name, re.compile(pattern), say)


def date_time_money_rules(
    currencies: dict[str, str], date: Say, time: Say, money_range: Say, money: Say
) -> tuple[Rule, ...]:
    """The rules both languages run in the same order: ISO and month/day dates, clock times,
    price ranges, then prices."""
    return (
        unbounded_rule("iso-date", r"(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})", date),
        unbounded_rule("date", r"(?<![\d/])(?P<y>)(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])", date),
        unbounded_rule("time", r"(?<!\d)(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)(?!\d)", time),
        unbounded_rule("money-range", currency_range_pattern(currencies), money_range),
        unbounded_rule("money", currency_pattern(currencies), money),
    )

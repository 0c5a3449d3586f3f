"""Rules shared by the languages num2words speaks (Spanish, French, Italian, Portuguese).

Each language module gives a `Locale` (locale_numbers.py): its words for currencies, months,
days, percent and the clock, and how it writes numbers (decimal comma, thousands dot or
space). The rules are the same everywhere: ranges and spans first (locale_spans.py), then
prices with their k/M/bn suffixes, percentages, times, day-first dates (the convention of
every one of these locales), ordinals, abbreviations and plain numbers, all read by
num2words in the voice's language.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.core import Rule, Written, claims, group, rule
from kokoro_server.text.normalize.locale_numbers import (
    NUMBER,
    Locale,
    before_next_word,
    keys,
    ordinal,
    say_date,
    say_money,
    words,
)
from kokoro_server.text.normalize.locale_spans import span_rules, word_before, word_rules

_BUILT: dict[str, tuple[Rule, ...]] = {}


def locale_rules(locale: Locale) -> tuple[Rule, ...]:
    if locale.lang not in _BUILT:
        _BUILT[locale.lang] = _build(locale)
    return _BUILT[locale.lang]


def _build(locale: Locale) -> tuple[Rule, ...]:
    return (
        *_date_rules(locale),
        *span_rules(locale),
        _time_rule(locale),
        _money_rule(locale),
        rule(
            "percent",
            r"(?P<n>[-−]?(?:" + NUMBER + r"))\s?%",
            lambda m: f"{words(m['n'], locale)} {locale.percent}",
        ),
        rule(
            "ordinal",
            r"(?P<n>\d+)\.?(?P<s>" + locale.ordinal_suffixes + r")",
            lambda m: _ordinal(m, locale),
        ),
        *word_rules(locale),
        rule("number", r"[-−]?(?:" + NUMBER + r")", lambda m: _number(m, locale)),
    )


def _date_rules(locale: Locale) -> tuple[Rule, ...]:
    """ISO dates and day-first numeric dates ("15/03/2024")."""

    def say_numeric(m: re.Match[str]) -> str | None:
        day, month = int(m["d"]), int(m["m"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        y = m["y"]
        year = None if not y else int(y) if len(y) == 4 else 2000 + int(y)
        return say_date(day, locale.month_names[month - 1], year, locale)

    def say_iso(m: re.Match[str]) -> str | None:
        month, day = int(m["m"]), int(m["d"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        return say_date(day, locale.month_names[month - 1], int(m["y"]), locale)

    return (
        rule("iso-date", r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})", say_iso),
        rule("date", r"(?P<d>\d{1,2})/(?P<m>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?", say_numeric),
    )


def _time_rule(locale: Locale) -> Rule:
    # "de 9:00 a 14:00": the ends of a span written out are said as a span's ends.
    span_to = re.compile(r"\s+(?:" + keys(locale.time_span[2:]) + r")\s+\d")

    def say_time(m: re.Match[str]) -> str | None:
        hour, minute = int(m["h"]), int(m["min"] or 0)
        if hour > 24:
            return None
        if locale.span_time and (
            word_before(m) in locale.time_span or span_to.match(m.string, m.end())
        ):
            return locale.span_time(hour, minute)
        return locale.say_time(hour, minute)

    return rule(
        "time",
        r"(?P<h>[01]?\d|2[0-3])(?::|h|\s?h\s?)(?P<min>[0-5]\d)?(?:\s?h(?:rs?)?\b)?",
        say_time,
    )


def _money_rule(locale: Locale) -> Rule:
    """A price, its symbol or code before or after the amount ("$25", "25 €", "$25 MXN")."""
    symbols = keys(k for k in locale.currency_forms if not k.isalpha())
    codes = keys(k for k in locale.currency_forms if k.isalpha())
    scale = r"(?:\s?(?P<scale>" + keys(locale.scale_forms) + r")\b)?"
    scale2 = scale.replace("<scale>", "<scale2>")

    def say_price(m: re.Match[str]) -> str:
        # "$25 MXN": the code after the amount says which dollar or peso the symbol is.
        code = m["named"] or m["cur"] or m["cur2"] or m["code"]
        amount = m["amount"] or m["amount2"]
        return (f"{locale.minus} " if m["neg"] else "") + say_money(
            locale, code, amount, m["scale"] or m["scale2"]
        )

    return rule(
        "money",
        r"(?P<neg>[-−])?(?:(?P<cur>"
        + symbols
        + r")\s?(?P<amount>"
        + NUMBER
        + r")"
        + scale
        + r"(?:\s(?P<named>"
        + codes
        + r")\b)?"
        + r"|(?P<amount2>"
        + NUMBER
        + r")"
        + scale2
        + r"\s?(?:(?P<cur2>"
        + symbols
        + r")|(?P<code>"
        + codes
        + r")\b))",
        say_price,
    )


def _number(m: re.Match[str], locale: Locale) -> str:
    return before_next_word(words(m[0], locale), m.string, m.end(), locale)


_NEXT_WORD = re.compile(r"\s+(\w+)")
_NOT_NOUNS = {"de", "del", "di", "da", "do", "du", "des", "en", "em", "a", "à", "y", "e", "o"}


def _ordinal(m: re.Match[str], locale: Locale) -> str:
    said = ordinal(int(m["n"]), m["s"], locale)
    following = _NEXT_WORD.match(m.string, m.end())
    noun = following is not None and following[1].lower() not in _NOT_NOUNS
    return locale.before_noun(said) if noun else said


def normalize(text: str, locale: Locale) -> list[Written]:
    return group(text, claims(text, locale_rules(locale)))


__all__ = ["locale_rules", "normalize"]

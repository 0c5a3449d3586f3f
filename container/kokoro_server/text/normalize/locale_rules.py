"""Rules shared by the languages num2words speaks (Spanish, French, Italian, Portuguese).

Each language module gives a `Locale`: its words for currencies, months, percent and the
clock, and how it writes numbers (decimal comma, thousands dot or space). The rules are the
same everywhere: prices with their k/M/bn suffixes, percentages, times, day-first dates
(the convention of every one of these locales), ordinals and plain numbers, all read by
num2words in the voice's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from num2words import num2words

from kokoro_server.text.normalize.core import Rule, Written, claims, group, rule


@dataclass(frozen=True)
class Locale:
    lang: str  # num2words' name
    months: tuple[str, ...]
    # symbol or code -> (one, many, sub-unit one, sub-unit many)
    currencies: dict[str, tuple[str, str, str, str]]
    percent: str
    and_word: str  # joins units and sub-units ("diez euros con cincuenta")
    point: dict[str, str]  # decimal separator as written -> word
    scales: dict[str, tuple[str, str]]  # suffix -> (one, many), said before the currency
    of_word: str  # "dos millones de euros"
    say_time: Callable[[int, int], str]
    say_date: Callable[[int, str, int | None], str]  # day, month name, year
    ordinal_suffixes: str  # regex of written ordinal endings ("º|ª|er|e")
    minus: str
    # The number's feminine form, said before a feminine noun ("doscientas personas").
    feminine: Callable[[str], str] | None = None
    # The number's form before a noun ("veintiuno" -> "veintiún euros").
    before_noun: Callable[[str], str] = field(default=lambda said: said)
    cents_named: bool = True  # "un euro e venti": Italian leaves the cents unnamed
    ordinal_words: Callable[[int, str], str] = field(default=lambda n, s: "")


def words(number: str, locale: Locale) -> str:
    """'1.234,5' (or '1,234.5', '1 234,5') -> the number in words."""
    number = number.replace("\u202f", " ").replace("\u00a0", " ")
    negative = number.startswith(("-", "−"))
    number = number.lstrip("-−+")
    whole, point, fraction = _split(number)
    said = str(num2words(int(whole or "0"), lang=locale.lang))
    if fraction:
        fraction_words = (
            str(num2words(int(fraction), lang=locale.lang))
            if not fraction.startswith("0")
            else " ".join(str(num2words(int(d), lang=locale.lang)) for d in fraction)
        )
        said += f" {locale.point[point]} {fraction_words}"
    return f"{locale.minus} {said}" if negative else said


def _split(number: str) -> tuple[str, str, str]:
    """The whole part, the decimal separator as written, and the fraction.

    With both '.' and ',' the last one is the decimal separator; a single separator followed
    by exactly three digits ("1.234", "1,234") groups thousands, as does a repeated one.
    """
    number = number.replace(" ", "")
    separators = [c for c in number if c in ".,"]
    if not separators:
        return number, "", ""
    last = separators[-1]
    head, _, tail = number.rpartition(last)
    if len(set(separators)) == 1 and (
        len(separators) > 1 or (len(tail) == 3 and head not in ("0", ""))
    ):
        return number.replace(last, ""), "", ""
    return head.replace(".", "").replace(",", ""), last, tail


NUMBER = r"\d{1,3}(?:[.\u202f\u00a0 ]\d{3})+(?:,\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"


def _keys(table: Iterable[str]) -> str:
    return "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))


def _money(locale: Locale, code: str, amount: str, scale: str | None) -> str:
    one, many, sub_one, sub_many = locale.currencies[code]
    if scale:
        scale_one, scale_many = locale.scales[scale]
        value = locale.before_noun(words(amount, locale))
        unit = scale_one if value in ("un", "uno", "um", "un") else scale_many
        if scale_one in ("mil", "mille"):  # "tres mil euros": no "de"
            return f"{value} {unit} {many}"
        of = "d'" if locale.of_word == "de" and locale.lang == "fr" and many[0] in "aeiou" else ""
        return f"{value} {unit} {of}{many}" if of else f"{value} {unit} {locale.of_word} {many}"
    whole, point, cents = _split(amount)
    said_whole = locale.before_noun(str(num2words(int(whole or "0"), lang=locale.lang)))
    unit = one if whole == "1" else many
    if point and sub_one and len(cents) == 2:
        cents_value = int(cents)
        if cents_value == 0:
            return f"{said_whole} {unit}"
        sub = sub_one if cents_value == 1 else sub_many
        said_cents = f"{num2words(cents_value, lang=locale.lang)}"
        said_cents += f" {sub}" if locale.cents_named else ""
        if whole in ("", "0"):
            return said_cents
        return f"{said_whole} {unit} {locale.and_word} {said_cents}"
    if point:
        return f"{words(amount, locale)} {many}"
    return f"{said_whole} {unit}"


_BUILT: dict[str, tuple[Rule, ...]] = {}


def locale_rules(locale: Locale) -> tuple[Rule, ...]:
    if locale.lang not in _BUILT:
        _BUILT[locale.lang] = _build(locale)
    return _BUILT[locale.lang]


def _build(locale: Locale) -> tuple[Rule, ...]:
    symbols = _keys(k for k in locale.currencies if not k.isalpha())
    codes = _keys(k for k in locale.currencies if k.isalpha())
    scale = r"(?:\s?(?P<scale>" + _keys(locale.scales) + r")\b)?"
    scale2 = scale.replace("<scale>", "<scale2>")

    def say_money(m: re.Match[str]) -> str:
        code = m["cur"] or m["cur2"] or m["code"]
        amount = m["amount"] or m["amount2"]
        return (f"{locale.minus} " if m["neg"] else "") + _money(
            locale, code, amount, m["scale"] or m["scale2"]
        )

    def say_date(m: re.Match[str]) -> str | None:
        day, month = int(m["d"]), int(m["m"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        y = m["y"]
        year = None if not y else int(y) if len(y) == 4 else 2000 + int(y)
        return locale.say_date(day, locale.months[month - 1], year)

    def say_iso(m: re.Match[str]) -> str | None:
        month, day = int(m["m"]), int(m["d"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        return locale.say_date(day, locale.months[month - 1], int(m["y"]))

    def say_time(m: re.Match[str]) -> str | None:
        hour, minute = int(m["h"]), int(m["min"] or 0)
        return locale.say_time(hour, minute) if hour <= 24 else None

    return (
        rule("iso-date", r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})", say_iso),
        rule("date", r"(?P<d>\d{1,2})/(?P<m>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?", say_date),
        rule(
            "time",
            r"(?P<h>[01]?\d|2[0-3])(?::|h|\s?h\s?)(?P<min>[0-5]\d)?(?:\s?h(?:rs?)?\b)?",
            say_time,
        ),
        rule(
            "money",
            r"(?P<neg>[-−])?(?:(?P<cur>"
            + symbols
            + r")\s?(?P<amount>"
            + NUMBER
            + r")"
            + scale
            + r"|(?P<amount2>"
            + NUMBER
            + r")"
            + scale2
            + r"\s?(?:(?P<cur2>"
            + symbols
            + r")|(?P<code>"
            + codes
            + r")\b))",
            say_money,
        ),
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
        rule("number", r"[-−]?(?:" + NUMBER + r")", lambda m: _number(m, locale)),
    )


# Nouns ending in -a that are masculine, in the languages that inflect numbers by gender.
_FEMININE = re.compile(r"(?:as?|ción|ciones|sión|siones|dad|dades|tud|tudes|ção|ções|horas?)$")
_PREPOSITIONS = {"de", "del", "di", "da", "do", "du", "des", "en", "em", "a", "à", "y", "e", "o"}
_MASCULINE_A = {"día", "días", "mapa", "mapas", "problema", "problemas", "programa",
                "programas", "sistema", "sistemas", "idioma", "idiomas", "tema", "temas",
                "clima", "dia", "dias"}  # fmt: skip


def _number(m: re.Match[str], locale: Locale) -> str:
    said = words(m[0], locale)
    following = re.match(r"\s+(\w+)", m.string[m.end() :])
    if (
        locale.feminine
        and following
        and _FEMININE.search(following[1].lower())
        and following[1].lower() not in _MASCULINE_A
    ):
        return locale.feminine(said)
    noun = following is not None and following[1].lower() not in _PREPOSITIONS
    return locale.before_noun(said) if noun and following and following[1][0].isalpha() else said


def _ordinal(m: re.Match[str], locale: Locale) -> str:
    said = locale.ordinal_words(int(m["n"]), m["s"])
    following = re.match(r"\s+(\w+)", m.string[m.end() :])
    noun = following is not None and following[1].lower() not in _PREPOSITIONS
    return locale.before_noun(said) if noun else said


def normalize(text: str, locale: Locale) -> list[Written]:
    return group(text, claims(text, locale_rules(locale)))

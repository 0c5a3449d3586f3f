"""French: prices, percentages, times (14h30), day-first dates and numbers in French words."""

from __future__ import annotations

from num2words import num2words

from kokoro_server.text.normalize.core import Written
from kokoro_server.text.normalize.locale_rules import Locale
from kokoro_server.text.normalize.locale_rules import normalize as _normalize


def _n(number: int) -> str:
    return str(num2words(number, lang="fr"))


def _time(hour: int, minute: int) -> str:
    said = "une heure" if hour == 1 else f"{_n(hour)} heures"
    return said if minute == 0 else f"{said} {_n(minute)}"


def _date(day: int, month: str, year: int | None) -> str:
    said = f"{'premier' if day == 1 else _n(day)} {month}"
    return f"{said} {_n(year)}" if year else said


def _ordinal(number: int, suffix: str) -> str:
    if number == 1:
        return "première" if suffix in ("re", "ère") else "premier"
    return str(num2words(number, lang="fr", to="ordinal"))


FRENCH = Locale(
    lang="fr",
    months=(
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
    currencies={
        "€": ("euro", "euros", "centime", "centimes"),
        "EUR": ("euro", "euros", "centime", "centimes"),
        "$": ("dollar", "dollars", "cent", "cents"),
        "USD": ("dollar", "dollars", "cent", "cents"),
        "CA$": ("dollar canadien", "dollars canadiens", "cent", "cents"),
        "CHF": ("franc suisse", "francs suisses", "centime", "centimes"),
        "£": ("livre", "livres", "penny", "pence"),
        "GBP": ("livre", "livres", "penny", "pence"),
        "¥": ("yen", "yens", "", ""),
        "₹": ("roupie", "roupies", "", ""),
    },
    percent="pour cent",
    and_word="et",
    point={",": "virgule", ".": "point"},
    scales={
        "k": ("mille", "mille"),
        "M": ("million", "millions"),
        "Md": ("milliard", "milliards"),
        "millions": ("million", "millions"),
        "milliards": ("milliard", "milliards"),
        "bn": ("milliard", "milliards"),
    },
    of_word="de",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"er|re|ère|e|ème",
    minus="moins",
    ordinal_words=_ordinal,
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, FRENCH)

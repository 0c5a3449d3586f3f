"""Italian: prices, percentages, times, day-first dates and numbers in Italian words."""

from __future__ import annotations

import re

from num2words import num2words

from kokoro_server.text.normalize.core import Written
from kokoro_server.text.normalize.locale_rules import Locale
from kokoro_server.text.normalize.locale_rules import normalize as _normalize


def _n(number: int) -> str:
    return str(num2words(number, lang="it"))


def _time(hour: int, minute: int) -> str:
    said = "una" if hour == 1 else _n(hour)
    if minute == 0:
        return said
    if minute == 30:
        return f"{said} e mezza"
    return f"{said} e {_n(minute)}"


def _date(day: int, month: str, year: int | None) -> str:
    said = f"{'primo' if day == 1 else _n(day)} {month}"
    return f"{said} {_n(year)}" if year else said


def _ordinal(number: int, suffix: str) -> str:
    said = str(num2words(number, lang="it", to="ordinal"))
    return said[:-1] + "a" if suffix in ("ª", "a") and said.endswith("o") else said


ITALIAN = Locale(
    lang="it",
    months=(
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ),
    currencies={
        "€": ("euro", "euro", "centesimo", "centesimi"),
        "EUR": ("euro", "euro", "centesimo", "centesimi"),
        "$": ("dollaro", "dollari", "centesimo", "centesimi"),
        "USD": ("dollaro", "dollari", "centesimo", "centesimi"),
        "£": ("sterlina", "sterline", "penny", "pence"),
        "GBP": ("sterlina", "sterline", "penny", "pence"),
        "CHF": ("franco svizzero", "franchi svizzeri", "centesimo", "centesimi"),
        "¥": ("yen", "yen", "", ""),
        "₹": ("rupia", "rupie", "", ""),
    },
    percent="per cento",
    and_word="e",
    point={",": "virgola", ".": "punto"},
    scales={
        "k": ("mille", "mila"),
        "M": ("milione", "milioni"),
        "mld": ("miliardo", "miliardi"),
        "mln": ("milione", "milioni"),
        "milioni": ("milione", "milioni"),
        "miliardi": ("miliardo", "miliardi"),
        "bn": ("miliardo", "miliardi"),
    },
    of_word="di",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"º|ª|°",
    minus="meno",
    ordinal_words=_ordinal,
    before_noun=lambda said: re.sub(r"\buno$", "un", said),
    cents_named=False,
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, ITALIAN)

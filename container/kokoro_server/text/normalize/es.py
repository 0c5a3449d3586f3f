"""Spanish: prices, percentages, times, day-first dates and numbers in Spanish words."""

from __future__ import annotations

import re

from num2words import num2words

from kokoro_server.text.normalize.core import Written
from kokoro_server.text.normalize.locale_rules import Locale
from kokoro_server.text.normalize.locale_rules import normalize as _normalize


def _n(number: int) -> str:
    return str(num2words(number, lang="es"))


def _time(hour: int, minute: int) -> str:
    said = "una" if hour == 1 else _n(hour)
    if minute == 0:
        return said + " en punto" if hour <= 12 else said + " horas"
    if hour > 12:  # the 24-hour clock: "catorce treinta"
        return f"{said} {_n(minute)}"
    if minute in (15, 30):
        return said + (" y cuarto" if minute == 15 else " y media")
    return f"{said} y {_n(minute)}"


def _before_noun(said: str) -> str:
    """'veintiuno euros' is said 'veintiún euros', 'uno' 'un'."""
    said = re.sub(r"\b(primero|tercero)$", lambda m: m[1][:-1], said)  # "tercer piso"
    return re.sub(r"veintiuno$", "veintiún", re.sub(r"\buno$", "un", said))


def _date(day: int, month: str, year: int | None) -> str:
    said = f"{'primero' if day == 1 else _n(day)} de {month}"
    return f"{said} de {_n(year)}" if year else said


def _feminine(said: str) -> str:
    said = re.sub(r"ientos\b", "ientas", said)
    return re.sub(r"\buno$", "una", re.sub(r"iuno$", "iuna", said))


def _ordinal(number: int, suffix: str) -> str:
    said = str(num2words(number, lang="es", to="ordinal"))
    if suffix in ("ª", "a", ".ª") and said.endswith("o"):
        return said[:-1] + "a"
    if suffix in ("er", ".er"):
        return said.removesuffix("o")  # "1.er lugar": primer
    return said


SPANISH = Locale(
    lang="es",
    months=(
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ),
    currencies={
        "€": ("euro", "euros", "céntimo", "céntimos"),
        "EUR": ("euro", "euros", "céntimo", "céntimos"),
        "$": ("dólar", "dólares", "centavo", "centavos"),
        "US$": ("dólar", "dólares", "centavo", "centavos"),
        "USD": ("dólar", "dólares", "centavo", "centavos"),
        "MX$": ("peso", "pesos", "centavo", "centavos"),
        "MXN": ("peso", "pesos", "centavo", "centavos"),
        "£": ("libra", "libras", "penique", "peniques"),
        "GBP": ("libra", "libras", "penique", "peniques"),
        "¥": ("yen", "yenes", "", ""),
        "₹": ("rupia", "rupias", "", ""),
        "R$": ("real", "reales", "centavo", "centavos"),
    },
    percent="por ciento",
    and_word="con",
    point={",": "coma", ".": "punto"},
    scales={
        "k": ("mil", "mil"),
        "M": ("millón", "millones"),
        "bn": ("mil millones", "mil millones"),
    },
    of_word="de",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"º|ª|er|o(?=\s)|a(?=\s)",
    minus="menos",
    ordinal_words=_ordinal,
    feminine=_feminine,
    before_noun=_before_noun,
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, SPANISH)

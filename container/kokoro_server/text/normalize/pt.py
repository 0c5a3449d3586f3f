"""Brazilian Portuguese: prices (R$), percentages, times, day-first dates and numbers."""

from __future__ import annotations

import re

from num2words import num2words

from kokoro_server.text.normalize.core import Written
from kokoro_server.text.normalize.locale_rules import Locale
from kokoro_server.text.normalize.locale_rules import normalize as _normalize


def _n(number: int) -> str:
    # Brazil says "quatorze" (num2words writes Portugal's "catorze").
    return str(num2words(number, lang="pt_BR")).replace(",", "").replace("catorze", "quatorze")


def _time(hour: int, minute: int) -> str:
    said = _feminine(_n(hour))  # "uma hora", "vinte e uma horas"
    if minute == 0:
        return f"{said} {'hora' if hour == 1 else 'horas'}"
    return f"{said} e {_n(minute)}"


def _date(day: int, month: str, year: int | None) -> str:
    said = f"{'primeiro' if day == 1 else _n(day)} de {month}"
    return f"{said} de {_n(year)}" if year else said


def _feminine(said: str) -> str:
    said = re.sub(r"entos\b", "entas", said)
    return re.sub(r"\bdois$", "duas", re.sub(r"\bum$", "uma", said))


def _ordinal(number: int, suffix: str) -> str:
    said = str(num2words(number, lang="pt_BR", to="ordinal"))
    return said[:-1] + "a" if suffix in ("ª", "a") and said.endswith("o") else said


PORTUGUESE = Locale(
    lang="pt_BR",
    months=(
        "janeiro",
        "fevereiro",
        "março",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
    ),
    currencies={
        "R$": ("real", "reais", "centavo", "centavos"),
        "BRL": ("real", "reais", "centavo", "centavos"),
        "$": ("dólar", "dólares", "centavo", "centavos"),
        "US$": ("dólar", "dólares", "centavo", "centavos"),
        "USD": ("dólar", "dólares", "centavo", "centavos"),
        "€": ("euro", "euros", "centavo", "centavos"),
        "EUR": ("euro", "euros", "centavo", "centavos"),
        "£": ("libra", "libras", "pêni", "pence"),
        "¥": ("iene", "ienes", "", ""),
        "₹": ("rupia", "rupias", "", ""),
    },
    percent="por cento",
    and_word="e",
    point={",": "vírgula", ".": "ponto"},
    scales={
        "mil": ("mil", "mil"),
        "k": ("mil", "mil"),
        "mi": ("milhão", "milhões"),
        "milhão": ("milhão", "milhões"),
        "milhões": ("milhão", "milhões"),
        "bilhões": ("bilhão", "bilhões"),
        "M": ("milhão", "milhões"),
        "bi": ("bilhão", "bilhões"),
        "bn": ("bilhão", "bilhões"),
    },
    of_word="de",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"º|ª",
    minus="menos",
    ordinal_words=_ordinal,
    feminine=_feminine,
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, PORTUGUESE)

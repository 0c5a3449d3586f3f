"""Brazilian Portuguese: prices (R$), percentages, times, day-first dates, ranges, days and
numbers."""

from __future__ import annotations

import re

from num2words import num2words

from kokoro_server.text.normalize.core import Written
from kokoro_server.text.normalize.locale_numbers import (
    currency_table,
    day_first_date,
    gendered_ordinal,
    name_list,
    scale_table,
)
from kokoro_server.text.normalize.locale_rules import Calendar, Locale, indexed, word_set
from kokoro_server.text.normalize.locale_rules import normalize as _normalize


def _n(number: int) -> str:
    # Brazil says "quatorze" (num2words writes Portugal's "catorze").
    return str(num2words(number, lang="pt_BR")).replace(",", "").replace("catorze", "quatorze")


def _time(hour: int, minute: int) -> str:
    said = _feminine(_n(hour))  # "uma hora", "vinte e uma horas"
    if minute == 0:
        return f"{said} {'hora' if hour == 1 else 'horas'}"
    return f"{said} e {_n(minute)}"


_date = day_first_date(_n, "primeiro", "de")


def _feminine(said: str) -> str:
    """The feminine ("duzentas pessoas"); millions stay masculine ("duzentos milhões")."""
    millions, tail = re.match(r"(.*\b(?:mi|bi)lh(?:ão|ões)\b ?)?(.*)", said).groups()  # type: ignore[union-attr]
    tail = re.sub(r"entos\b", "entas", tail)
    return (millions or "") + re.sub(r"\bdois$", "duas", re.sub(r"\bum$", "uma", tail))


_ordinal = gendered_ordinal("pt_BR")


PORTUGUESE = Locale(
    lang="pt_BR",
    months=name_list(
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro"
    ),
    currencies=currency_table(
        """
        R$ | BRL: real, reais, centavo, centavos
        $ | US$ | USD: dólar, dólares, centavo, centavos
        € | EUR: euro, euros, centavo, centavos
        £: libra, libras, pêni, pence
        ¥: iene, ienes
        ₹: rupia, rupias
        """
    ),
    percent="por cento",
    and_word="e",
    point={",": "vírgula", ".": "ponto"},
    scales=scale_table(
        """
        mil | k: mil, mil
        mi | milhão | milhões: milhão, milhões
        bilhões: bilhão, bilhões
        M: milhão, milhões
        bi | bn: bilhão, bilhões
        """
    ),
    of_word="de",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"º|ª",
    minus="menos",
    ordinal_words=_ordinal,
    feminine=_feminine,
    cardinal=_n,
    calendar=Calendar(
        weekdays=("segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo"),
        weekday_abbreviations=indexed("seg ter qua qui sex sáb|sab dom"),
        month_abbreviations=indexed("jan fev mar abr mai jun jul ago set out nov dez"),
        weekday_span=("de", "a"),
        month_span=("de", "a"),
        list_words=("e", "ou"),
        plural_after=word_set("às as nas aos os nos"),
        weekday_plurals=(
            "segundas",
            "terças",
            "quartas",
            "quintas",
            "sextas",
            "sábados",
            "domingos",
        ),
    ),
    range_to_after={"entre": "e", "do": "ao", "dos": "aos", "das": "às", "da": "à"},
    prepositions=word_set(
        "de do da dos das em no na nos nas por para a ao à às entre até o os as um uma e ou cerca"
    ),
    time_span=("das", "da", "às", "à"),
    hour_cues=word_set(
        "horário aberto aberta abertos abertas funcionamento atendimento expediente"
    ),
    units={"pb": ("ponto-base", "pontos-base")},
    # "por exemplo" is set off by commas, as the language's punctuation sets it.
    abbreviations={
        "aprox.": "aproximadamente",
        "pág.": "página",
        "págs.": "páginas",
        "tel.": "telefone",
        "p. ex.": "por exemplo,",
        "p.ex.": "por exemplo,",
        "nº": "número",
        "n.º": "número",
        "av.": "avenida",
        "etc.": "etcétera",
        "sr.": "senhor",
        "sra.": "senhora",
        "dr.": "doutor",
        "dra.": "doutora",
    },
    phone_cues=r"tel\.|telefone|cel\.|celular|whatsapp|ligue para|fone",
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, PORTUGUESE)

"""Italian: prices, percentages, times, day-first dates, ranges, days and numbers in Italian."""

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
    # "due milioni ottocentomila": no "e" between the millions and a part in thousands.
    said = str(num2words(number, lang="it"))
    return re.sub(r"\b(milion[ei]|miliard[oi]) e (?=\w*(?:mila|mille)\b)", r"\1 ", said)


def _time(hour: int, minute: int) -> str:
    said = "una" if hour == 1 else _n(hour)
    if minute == 0:
        return said
    if minute == 30:
        return f"{said} e mezza"
    return f"{said} e {_n(minute)}"


_date = day_first_date(_n, "primo")


_ordinal = gendered_ordinal("it")


ITALIAN = Locale(
    lang="it",
    months=name_list(
        "gennaio febbraio marzo aprile maggio giugno "
        "luglio agosto settembre ottobre novembre dicembre"
    ),
    currencies=currency_table(
        """
        € | EUR: euro, euro, centesimo, centesimi
        $ | USD: dollaro, dollari, centesimo, centesimi
        £ | GBP: sterlina, sterline, penny, pence
        CHF: franco svizzero, franchi svizzeri, centesimo, centesimi
        ¥: yen, yen
        ₹: rupia, rupie
        """
    ),
    percent="per cento",
    and_word="e",
    point={",": "virgola", ".": "punto"},
    scales=scale_table(
        """
        k | mila: mille, mila
        M: milione, milioni
        mld: miliardo, miliardi
        mln | milioni: milione, milioni
        miliardi | bn: miliardo, miliardi
        """
    ),
    of_word="di",
    say_time=_time,
    say_date=_date,
    ordinal_suffixes=r"º|ª|°",
    minus="meno",
    ordinal_words=_ordinal,
    before_noun=lambda said: re.sub(r"\buno$", "un", said),
    cents_named=False,
    cardinal=_n,
    calendar=Calendar(
        weekdays=("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
        weekday_abbreviations=indexed("lun mar mer gio ven sab dom"),
        month_abbreviations=indexed("gen feb mar apr mag giu lug ago set|sett ott nov dic"),
        weekday_span=("dal", "al"),
        month_span=("da", "a"),
        list_words=("e", "o"),
    ),
    # "del 3–5 %" is said as written, "del tre-cinque per cento".
    range_to_after={
        "tra": "e",
        "fra": "e",
        "dal": "al",
        "dai": "ai",
        "dalle": "alle",
        "dagli": "agli",
        "del": "-",
    },
    range_from="da",
    prepositions=word_set(
        "di del della dei degli da dal dalla dai in a al alla ai tra fra per su il lo la i gli le"
        " un una e o circa"
    ),
    time_span=("dalle", "dall'", "alle", "all'"),
    hour_cues=word_set("orario orari aperto aperta aperti aperte ore"),
    dot_time_after=word_set("alle dalle le ore verso"),
    units={"pb": ("punto base", "punti base")},
    abbreviations={
        "ca.": "circa",
        "pag.": "pagina",
        "pagg.": "pagine",
        "tel.": "telefono",
        "p.es.": "per esempio",
        "p. es.": "per esempio",
        "ecc.": "eccetera",
        "sig.": "signor",
        "sig.ra": "signora",
        "dott.": "dottor",
    },
    phone_cues=r"tel\.|telefono|cell\.|cellulare|chiama il|chiamare il",
)


def normalize(text: str) -> list[Written]:
    return _normalize(text, ITALIAN)

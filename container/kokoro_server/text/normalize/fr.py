"""French: prices, percentages, times (14h30), day-first dates, ranges, days and numbers."""

from __future__ import annotations

from num2words import num2words

from kokoro_server.text.normalize.locale_numbers import Calendar, Locale, cardinal_in

_n = cardinal_in("fr")


def _time(hour: int, minute: int) -> str:
    said = "une heure" if hour == 1 else "zéro heure" if hour == 0 else f"{_n(hour)} heures"
    return said if minute == 0 else f"{said} {_n(minute)}"


def _ordinal(number: int, suffix: str) -> str:
    if number == 1:
        return "première" if suffix in ("re", "ère") else "premier"
    return str(num2words(number, lang="fr", to="ordinal"))


FRENCH = Locale(
    lang="fr",
    months="janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    currencies="""
        € | EUR: euro, euros, centime, centimes
        $ | USD: dollar, dollars, cent, cents
        CA$ | $ CA | $CA | CAD: dollar canadien, dollars canadiens, cent, cents
        CHF: franc suisse, francs suisses, centime, centimes
        £ | GBP: livre, livres, penny, pence
        ¥: yen, yens
        ₹: roupie, roupies
        """,
    percent="pour cent",
    and_word="et",
    point={",": "virgule", ".": "point"},
    scales="""
        k: mille, mille
        M: million, millions
        Md: milliard, milliards
        millions: million, millions
        milliards | bn: milliard, milliards
        """,
    of_word="de",
    say_time=_time,
    first_of_month="premier",
    ordinal_suffixes=r"er|re|ère|e|ème",
    minus="moins",
    ordinal_words=_ordinal,
    calendar=Calendar(
        weekdays="lundi mardi mercredi jeudi vendredi samedi dimanche",
        weekday_abbreviations="lun mar mer jeu ven sam dim",
        # "mars", "mai", "juin", "août" are written whole.
        month_abbreviations="janv févr|fév - avr - - juil - sept oct nov déc",
        weekday_span=("du", "au"),
        month_span=("de", "à"),
        list_words=("et", "ou"),
    ),
    range_to="à",
    range_to_after={"entre": "et"},
    prepositions="de du des d à au aux en par pour entre le la les l un une et ou sur vers",
    time_span=("de", "de", "à", "à"),
    hour_cues="horaires horaire ouvert ouverte ouverts ouvertes",
    units={"pb": ("point de base", "points de base")},
    abbreviations={
        "env.": "environ",
        "p. ex.": "par exemple",
        "p.ex.": "par exemple",
        "tél.": "téléphone",
        "n°": "numéro",
        "nº": "numéro",
        "etc.": "et cetera",
        "mme": "madame",
        "mlle": "mademoiselle",
    },
    phone_cues=r"tél\.|tel\.|téléphone|portable",
    phone_pairs=True,
    roman_ordinals=True,
)

"""Italian: prices, percentages, times, day-first dates, ranges, days and numbers in Italian."""

from __future__ import annotations

from kokoro_server.text.normalize.locale_numbers import Calendar, Locale, cardinal_in, number_form

# "due milioni ottocentomila": no "e" between the millions and a part in thousands.
_n = cardinal_in(
    "it", number_form((r"\b(milion[ei]|miliard[oi]) e (?=\w*(?:mila|mille)\b)", r"\1 "))
)


def _time(hour: int, minute: int) -> str:
    said = "una" if hour == 1 else _n(hour)
    if minute == 0:
        return said
    if minute == 30:
        return f"{said} e mezza"
    return f"{said} e {_n(minute)}"


ITALIAN = Locale(
    lang="it",
    months=(
        "gennaio febbraio marzo aprile maggio giugno "
        "luglio agosto settembre ottobre novembre dicembre"
    ),
    currencies="""
        € | EUR: euro, euro, centesimo, centesimi
        $ | USD: dollaro, dollari, centesimo, centesimi
        £ | GBP: sterlina, sterline, penny, pence
        CHF: franco svizzero, franchi svizzeri, centesimo, centesimi
        ¥: yen, yen
        ₹: rupia, rupie
        """,
    percent="per cento",
    and_word="e",
    point={",": "virgola", ".": "punto"},
    scales="""
        k | mila: mille, mila
        M: milione, milioni
        mld: miliardo, miliardi
        mln | milioni: milione, milioni
        miliardi | bn: miliardo, miliardi
        """,
    of_word="di",
    say_time=_time,
    first_of_month="primo",
    ordinal_suffixes=r"º|ª|°",
    minus="meno",
    before_noun=number_form((r"\buno$", "un")),
    cents_named=False,
    cardinal=_n,
    calendar=Calendar(
        weekdays="lunedì martedì mercoledì giovedì venerdì sabato domenica",
        weekday_abbreviations="lun mar mer gio ven sab dom",
        month_abbreviations="gen feb mar apr mag giu lug ago set|sett ott nov dic",
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
    prepositions=(
        "di del della dei degli da dal dalla dai in a al alla ai tra fra per su il lo la i gli le"
        " un una e o circa"
    ),
    time_span=("dalle", "dall'", "alle", "all'"),
    hour_cues="orario orari aperto aperta aperti aperte ore",
    dot_time_after="alle dalle le ore verso",
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

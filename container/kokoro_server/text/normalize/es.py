"""Spanish: prices, percentages, times, day-first dates, ranges, days and numbers in Spanish."""

from __future__ import annotations

from kokoro_server.text.normalize.locale_numbers import (
    Calendar,
    Locale,
    cardinal_in,
    gendered_ordinal,
    number_form,
)

_n = cardinal_in("es")


def _time(hour: int, minute: int) -> str:
    said = "una" if hour == 1 else _n(hour)
    if minute == 0:
        return said + " en punto" if hour <= 12 else said + " horas"
    if hour > 12:  # the 24-hour clock: "catorce treinta"
        return f"{said} {_n(minute)}"
    if minute in (15, 30):
        return said + (" y cuarto" if minute == 15 else " y media")
    return f"{said} y {_n(minute)}"


def _span_time(hour: int, minute: int) -> str:
    """An end of a span of hours: "de nueve a catorce" (no "en punto", no "horas")."""
    return ("una" if hour == 1 else _n(hour)) if minute == 0 else _time(hour, minute)


def _twelve_hour(hour: int, minute: int, pm: bool) -> str:
    """A twelve-hour time ("10:30 a. m."): the time and the part of the day it is in ("diez y
    media de la mañana")."""
    said = _span_time(hour, minute)
    if pm:
        part = "del mediodía" if hour == 12 else "de la tarde" if hour < 8 else "de la noche"
    else:
        part = "de la noche" if hour == 12 else "de la madrugada" if hour < 6 else "de la mañana"
    return f"{said} {part}"


# Before a noun: "tercer piso", "un euro", "veintiún euros".
_before_noun = number_form(
    (r"\b(primer|tercer)o$", r"\1"), (r"\buno$", "un"), (r"veintiuno$", "veintiún")
)
# The feminine ("doscientas personas"); millions stay masculine ("doscientos millones").
_feminine = number_form(
    (r"ientos\b", "ientas"), (r"iuno$", "iuna"), (r"\buno$", "una"), keep=r"mill(?:ón|ones)"
)


def _ordinal(number: int, suffix: str) -> str:
    said = gendered_ordinal(number, suffix, "es", ("ª", "a", ".ª"))
    if suffix in ("er", ".er"):
        return said.removesuffix("o")  # "1.er lugar": primer
    return said


SPANISH = Locale(
    lang="es",
    months=(
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"
    ),
    currencies="""
        € | EUR: euro, euros, céntimo, céntimos
        $ | US$ | USD: dólar, dólares, centavo, centavos
        MX$ | MXN: peso, pesos, centavo, centavos
        £ | GBP: libra, libras, penique, peniques
        ¥: yen, yenes
        ₹: rupia, rupias
        R$: real, reales, centavo, centavos
        """,
    percent="por ciento",
    and_word="con",
    point={",": "coma", ".": "punto"},
    scales="""
        k: mil, mil
        M: millón, millones
        bn: mil millones, mil millones
        mil: mil, mil
        millón | millones: millón, millones
        """,
    of_word="de",
    say_time=_time,
    first_of_month="primero",
    date_of="de",
    ordinal_suffixes=r"º|ª|er|o(?=\s)|a(?=\s)",
    minus="menos",
    ordinal_words=_ordinal,
    feminine=_feminine,
    before_noun=_before_noun,
    calendar=Calendar(
        weekdays="lunes martes miércoles jueves viernes sábado domingo",
        weekday_abbreviations="lun mar mié|miér|mie jue vie sáb|sab dom",
        month_abbreviations="ene feb mar abr may jun jul ago sep|sept|set oct nov dic",
        list_words=("y", "e", "o", "u"),
        weekday_letters="LMXJVSD",
    ),
    range_to_after={"del": "al", "entre": "y"},
    prepositions=(
        "de del desde en por para a al entre hasta sobre hacia el la los las un una unos unas y o"
    ),
    span_time=_span_time,
    hour_cues="horario horarios abierto abierta abiertos abiertas abrimos atendemos atención",
    dot_time_after="las la",
    twelve_hour=_twelve_hour,
    units={"pb": ("punto básico", "puntos básicos")},
    # "por ejemplo" is set off by commas, as the language's punctuation sets it.
    abbreviations={
        "aprox.": "aproximadamente",
        "pág.": "página",
        "págs.": "páginas",
        "tel.": "teléfono",
        "telf.": "teléfono",
        "tfno.": "teléfono",
        "avda.": "avenida",
        "incl.": "incluido",
        "p. ej.": "por ejemplo,",
        "n.º": "número",
        "nº": "número",
        "etc.": "etcétera",
        "sr.": "señor",
        "sra.": "señora",
        "dr.": "doctor",
        "dra.": "doctora",
    },
    phone_cues=r"tel\.|telf\.|tfno\.|teléfono|móvil|llámanos al|llama al",
)

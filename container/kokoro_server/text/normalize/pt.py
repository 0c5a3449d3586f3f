"""Brazilian Portuguese: prices (R$), percentages, times, day-first dates, ranges, days and
numbers."""

from __future__ import annotations

from kokoro_server.text.normalize.locale_numbers import Calendar, Locale, cardinal_in, number_form

# Brazil says "quatorze" (num2words writes Portugal's "catorze").
_n = cardinal_in("pt_BR", number_form((",", ""), ("catorze", "quatorze")))


# The feminine ("duzentas pessoas"); millions stay masculine ("duzentos milhões").
_feminine = number_form(
    (r"entos\b", "entas"), (r"\bum$", "uma"), (r"\bdois$", "duas"), keep=r"(?:mi|bi)lh(?:ão|ões)"
)


def _time(hour: int, minute: int) -> str:
    said = _feminine(_n(hour))  # "uma hora", "vinte e uma horas"
    if minute == 0:
        return f"{said} {'hora' if hour == 1 else 'horas'}"
    return f"{said} e {_n(minute)}"


PORTUGUESE = Locale(
    lang="pt_BR",
    months=(
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro"
    ),
    currencies="""
        R$ | BRL: real, reais, centavo, centavos
        $ | US$ | USD: dólar, dólares, centavo, centavos
        € | EUR: euro, euros, centavo, centavos
        £: libra, libras, pêni, pence
        ¥: iene, ienes
        ₹: rupia, rupias
        """,
    percent="por cento",
    and_word="e",
    point={",": "vírgula", ".": "ponto"},
    scales="""
        mil | k: mil, mil
        mi | milhão | milhões: milhão, milhões
        bilhões: bilhão, bilhões
        M: milhão, milhões
        bi | bn: bilhão, bilhões
        """,
    of_word="de",
    say_time=_time,
    first_of_month="primeiro",
    date_of="de",
    ordinal_suffixes=r"º|ª",
    minus="menos",
    feminine=_feminine,
    cardinal=_n,
    calendar=Calendar(
        weekdays="segunda terça quarta quinta sexta sábado domingo",
        weekday_abbreviations="seg ter qua qui sex sáb|sab dom",
        month_abbreviations="jan fev mar abr mai jun jul ago set out nov dez",
        list_words=("e", "ou"),
        plural_after="às as nas aos os nos",
        weekday_plurals="segundas terças quartas quintas sextas sábados domingos",
    ),
    range_to_after={"entre": "e", "do": "ao", "dos": "aos", "das": "às", "da": "à"},
    prepositions=(
        "de do da dos das em no na nos nas por para a ao à às entre até o os as um uma e ou cerca"
    ),
    time_span=("das", "da", "às", "à"),
    hour_cues="horário aberto aberta abertos abertas funcionamento atendimento expediente",
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

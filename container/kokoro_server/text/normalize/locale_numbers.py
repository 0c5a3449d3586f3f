"""A language's words and formats (`Locale`), and numbers and prices said in them.

Shared by Spanish, French, Italian and Portuguese (the languages num2words speaks): each
module gives a `Locale`; the rules (locale_rules.py, locale_spans.py) read with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from num2words import num2words

from kokoro_server.text.normalize.core import word_set


def _rows(table: str) -> list[tuple[list[str], list[str]]]:
    """Rows "key | other key: form, form": the keys (bar-separated, spaces allowed) and their
    comma-separated forms; blank lines skipped."""
    rows = []
    for line in table.strip().splitlines():
        keys_part, _, forms = line.partition(":")
        rows.append(
            ([k.strip() for k in keys_part.split("|")], [f.strip() for f in forms.split(",")])
        )
    return rows


def currency_table(table: str) -> dict[str, tuple[str, str, str, str]]:
    """Rows "€ | EUR: euro, euros, cent, cents" (the sub-unit left out when there is none)
    -> each symbol or code's (one, many, one sub-unit, many sub-units), in row order."""
    out: dict[str, tuple[str, str, str, str]] = {}
    for keys, forms in _rows(table):
        one, many, *cents = forms
        sub, subs = cents or ("", "")
        for key in keys:
            out[key] = (one, many, sub, subs)
    return out


def scale_table(table: str) -> dict[str, tuple[str, str]]:
    """Rows "M | millions: million, millions" -> each suffix's (one, many), in row order."""
    out: dict[str, tuple[str, str]] = {}
    for keys, (one, many) in _rows(table):
        for key in keys:
            out[key] = (one, many)
    return out


def cardinal_in(lang: str, form: Callable[[str], str] = str) -> Callable[[int], str]:
    """num2words' cardinal in one language (21 -> "veintiuno"), put in `form` where the
    language's usage differs from num2words'."""
    return lambda number: form(str(num2words(number, lang=lang)))


def gendered_ordinal(
    number: int, suffix: str, lang: str, feminine: tuple[str, ...] = ("ª", "a")
) -> str:
    """num2words' ordinal, in the feminine after a feminine suffix ("1ª" -> "primera")."""
    said = str(num2words(number, lang=lang, to="ordinal"))
    return said[:-1] + "a" if suffix in feminine and said.endswith("o") else said


def number_form(*swaps: tuple[str, str], keep: str = "") -> Callable[[str], str]:
    """A form of a number in words (before a noun, in the feminine): each (pattern,
    replacement) applied in turn; a head up to the last word matching `keep` (the millions,
    which stay masculine) is left as it is."""
    head = re.compile(rf"(.*\b(?:{keep})\b ?)?(.*)") if keep else None

    def form(said: str) -> str:
        kept, tail = "", said
        if head and (split := head.match(said)):
            kept, tail = split[1] or "", split[2]
        for pattern, replacement in swaps:
            tail = re.sub(pattern, replacement, tail)
        return kept + tail

    return form


def indexed(names: str) -> dict[str, int]:
    """Each name's place: "lun mar mié|mie" -> {"lun": 0, "mar": 1, "mié": 2, "mie": 2}, the
    other spellings of one name after a bar, "-" for a place with no abbreviation."""
    return {
        spelling: i
        for i, name in enumerate(names.split())
        for spelling in name.split("|")
        if spelling != "-"
    }


@dataclass(frozen=True)
class Calendar:
    """Day and month names, their abbreviations, and how a span of them is said; names and
    words space-separated, as written."""

    weekdays: str  # Monday first
    # Abbreviations in order, Monday (January) first, as `indexed` reads them: "lun mar
    # mié|mie ..." (written with or without a period).
    weekday_abbreviations: str
    month_abbreviations: str
    list_words: tuple[str, ...]  # words joining a list of days ("y", "o")
    weekday_span: tuple[str, str] = ("de", "a")  # "du lundi au vendredi": ("du", "au")
    month_span: tuple[str, str] = ("de", "a")  # ("de", "à")
    weekday_letters: str = ""  # one letter a day, Monday first ("LMXJVSD")
    # Days said in the plural after these words ("às terças": on Tuesdays) and their plurals.
    plural_after: str = ""
    weekday_plurals: str = ""

    @cached_property
    def weekday_names(self) -> tuple[str, ...]:
        return tuple(self.weekdays.split())

    @cached_property
    def weekday_plural_names(self) -> tuple[str, ...]:
        return tuple(self.weekday_plurals.split())

    @cached_property
    def weekday_places(self) -> dict[str, int]:
        return indexed(self.weekday_abbreviations)  # "lun" -> 0

    @cached_property
    def month_places(self) -> dict[str, int]:
        return indexed(self.month_abbreviations)  # "ene" -> 0

    @cached_property
    def plural_after_words(self) -> frozenset[str]:
        return word_set(self.plural_after)


@dataclass(frozen=True)
class Locale:
    """A language's words and formats. Tables are given as written (words space-separated,
    rows as `currency_table` and `scale_table` read them); the rules read them parsed."""

    lang: str  # num2words' name
    months: str  # the twelve names, January first
    currencies: str  # rows "€ | EUR: euro, euros, céntimo, céntimos"
    percent: str
    and_word: str  # joins units and sub-units ("diez euros con cincuenta")
    point: dict[str, str]  # decimal separator as written -> word
    scales: str  # rows "M | millones: millón, millones", said before the currency
    of_word: str  # "dos millones de euros"
    say_time: Callable[[int, int], str]
    # A date is said day first, the first of the month by its ordinal: "primero de mayo de
    # dos mil veinticuatro" (`first_of_month` "primero", `date_of` "de").
    first_of_month: str
    ordinal_suffixes: str  # regex of written ordinal endings ("º|ª|er|e")
    minus: str
    calendar: Calendar
    # The number's feminine form, said before a feminine noun ("doscientas personas").
    feminine: Callable[[str], str] | None = None
    # The number's form before a noun ("veintiuno" -> "veintiún euros").
    before_noun: Callable[[str], str] = field(default=lambda said: said)
    cents_named: bool = True  # "un euro e venti": Italian leaves the cents unnamed
    date_of: str = ""  # the word between day, month and year ("de")
    # An ordinal's words ("1º", "2ª") where they are not num2words' gendered ordinal.
    ordinal_words: Callable[[int, str], str] | None = None
    # A whole number in words, where the language's usage differs from num2words'.
    cardinal: Callable[[int], str] | None = None
    # Ranges ("3–5 %"): the word between the ends, or the one a preceding word calls for
    # ("del 3 al 5"); "and" after "between" ("entre 3 y 5").
    range_to: str = "a"
    range_to_after: dict[str, str] = field(default_factory=dict)
    # The word that opens a range of amounts where no preposition does ("da 800 a 1.200 €").
    range_from: str = ""
    prepositions: str = ""
    # A span of clock times: (from, from one o'clock, to, to one o'clock) ("dalle", "dall'"...).
    time_span: tuple[str, str, str, str] = ("de", "de", "a", "a")
    span_time: Callable[[int, int], str] | None = None  # a time as an end of a span
    hour_cues: str = ""  # words that make "9–19" a span of hours
    dot_time_after: str = ""  # "alle 10.30": a time after these words
    twelve_hour: Callable[[int, int, bool], str] | None = None  # "10:30 a. m." (pm: True)
    units: dict[str, tuple[str, str]] = field(default_factory=dict)  # "pb" after a number
    abbreviations: dict[str, str] = field(default_factory=dict)  # "aprox." -> the word
    phone_cues: str = ""  # regex of what names a telephone number before it
    phone_pairs: bool = False  # French reads a number's two-digit groups as numbers
    roman_ordinals: bool = False  # "XXIe siècle"

    @cached_property
    def month_names(self) -> tuple[str, ...]:
        return tuple(self.months.split())

    @cached_property
    def currency_forms(self) -> dict[str, tuple[str, str, str, str]]:
        """Symbol or code -> (one, many, sub-unit one, sub-unit many)."""
        return currency_table(self.currencies)

    @cached_property
    def scale_forms(self) -> dict[str, tuple[str, str]]:
        """Suffix -> (one, many)."""
        return scale_table(self.scales)

    @cached_property
    def preposition_words(self) -> frozenset[str]:
        return word_set(self.prepositions)

    @cached_property
    def hour_cue_words(self) -> frozenset[str]:
        return word_set(self.hour_cues)

    @cached_property
    def dot_time_words(self) -> frozenset[str]:
        return word_set(self.dot_time_after)


def cardinal(number: int, locale: Locale) -> str:
    if locale.cardinal:
        return locale.cardinal(number)
    return str(num2words(number, lang=locale.lang))


def ordinal(number: int, suffix: str, locale: Locale) -> str:
    if locale.ordinal_words:
        return locale.ordinal_words(number, suffix)
    return gendered_ordinal(number, suffix, locale.lang)


def say_date(day: int, month: str, year: int | None, locale: Locale) -> str:
    """Day, month name and year: "primero de mayo de dos mil veinticuatro", "premier mai"."""
    joiner = f" {locale.date_of} " if locale.date_of else " "
    said = f"{locale.first_of_month if day == 1 else cardinal(day, locale)}{joiner}{month}"
    return f"{said}{joiner}{cardinal(year, locale)}" if year else said


def words(number: str, locale: Locale) -> str:
    """'1.234,5' (or '1,234.5', '1 234,5') -> the number in words."""
    number = number.replace("\u202f", " ").replace("\u00a0", " ")
    negative = number.startswith(("-", "−"))
    number = number.lstrip("-−+")
    whole, point, fraction = split_number(number)
    said = cardinal(int(whole or "0"), locale)
    if fraction:
        fraction_words = (
            cardinal(int(fraction), locale)
            if not fraction.startswith("0")
            else " ".join(cardinal(int(d), locale) for d in fraction)
        )
        said += f" {locale.point[point]} {fraction_words}"
    return f"{locale.minus} {said}" if negative else said


def split_number(number: str) -> tuple[str, str, str]:
    """The whole part, the decimal separator as written, and the fraction.

    With both '.' and ',' the last one is the decimal separator; a single separator followed
    by exactly three digits ("1.234", "1,234") groups thousands, as does a repeated one.
    """
    number = number.replace(" ", "").replace("\u202f", "").replace("\u00a0", "")
    separators = [c for c in number if c in ".,"]
    if not separators:
        return number, "", ""
    last = separators[-1]
    head, _, tail = number.rpartition(last)
    if len(set(separators)) == 1 and (
        len(separators) > 1 or (len(tail) == 3 and head not in ("0", ""))
    ):
        return number.replace(last, ""), "", ""
    return head.replace(".", "").replace(",", ""), last, tail


NUMBER = r"\d{1,3}(?:[.\u202f\u00a0 ]\d{3})+(?:,\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"


def keys(table: Iterable[str]) -> str:
    return "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))


# Nouns ending in -a that are masculine, in the languages that inflect numbers by gender.
_FEMININE = re.compile(r"(?:as?|ción|ciones|sión|siones|dad|dades|tud|tudes|ção|ções|horas?)$")
# Words after a number that are no noun it counts (prepositions, articles, conjunctions).
_NOT_NOUNS = {"de", "del", "di", "da", "do", "du", "des", "en", "em", "a", "à", "y", "e", "o",
              "al", "ao", "aos", "au", "aux", "às", "el", "la", "las", "los", "lo", "le", "les",
              "il", "gli", "para", "por", "per", "pour", "con", "com", "avec", "sin", "sem",
              "et", "ou", "u", "ni", "que", "che", "hasta", "até", "entre", "tra", "fra",
              "sur", "su", "sobre", "no", "na", "nos", "nas", "dans", "in"}  # fmt: skip
_MASCULINE_A = {"día", "días", "mapa", "mapas", "problema", "problemas", "programa",
                "programas", "sistema", "sistemas", "idioma", "idiomas", "tema", "temas",
                "clima", "dia", "dias"}  # fmt: skip
_NEXT_WORD = re.compile(r"\s+(\w+)")


def before_next_word(said: str, text: str, end: int, locale: Locale) -> str:
    """A number said for the noun after it (the word at `end` of `text`): "doscientas
    personas", "veintiún euros"; as is before a preposition or at the end."""
    following = _NEXT_WORD.match(text, end)
    if not following:
        return said
    word = following[1].lower()
    if word in _NOT_NOUNS or not following[1][0].isalpha():
        return said
    if locale.feminine and _FEMININE.search(word) and word not in _MASCULINE_A:
        return locale.feminine(said)
    return locale.before_noun(said)


def is_thousands(scale: str | None, locale: Locale) -> bool:
    return scale is not None and locale.scale_forms[scale][0] in ("mil", "mille")


def scaled(amount: str, scale: str | None, locale: Locale) -> str:
    """An amount with its scale word, before a noun: "2,5 mil" is "dos mil quinientos" (the
    thousands multiplied out when that gives a whole number), "1,5 M" "uno coma cinco
    millones", "1 M" "un millón"."""
    if scale is None:
        return locale.before_noun(words(amount, locale))
    if is_thousands(scale, locale):
        whole, _, fraction = split_number(amount)
        value = Decimal(f"{whole or '0'}.{fraction or '0'}") * 1000
        if value == value.to_integral_value():
            return locale.before_noun(cardinal(int(value), locale))
    value_said = locale.before_noun(words(amount, locale))
    one, many = locale.scale_forms[scale]
    return f"{value_said} {one if value_said in ('un', 'uno', 'um') else many}"


def say_money(locale: Locale, code: str, amount: str, scale: str | None) -> str:
    one, many, sub_one, sub_many = locale.currency_forms[code]
    if scale:
        said = scaled(amount, scale, locale)
        if is_thousands(scale, locale):
            return f"{said} {many}"  # "tres mil euros": no "de"
        if locale.lang == "fr" and many[0] in "aeiou":
            return f"{said} d'{many}"  # "trois millions d'euros"
        return f"{said} {locale.of_word} {many}"
    whole, point, cents = split_number(amount)
    said_whole = locale.before_noun(cardinal(int(whole or "0"), locale))
    unit = one if whole == "1" else many
    if point and sub_one and len(cents) == 2:
        cents_value = int(cents)
        if cents_value == 0:
            return f"{said_whole} {unit}"
        sub = sub_one if cents_value == 1 else sub_many
        said_cents = cardinal(cents_value, locale)
        said_cents += f" {sub}" if locale.cents_named else ""
        if whole in ("", "0"):
            return said_cents
        return f"{said_whole} {unit} {locale.and_word} {said_cents}"
    if point:
        return f"{words(amount, locale)} {many}"
    return f"{said_whole} {unit}"

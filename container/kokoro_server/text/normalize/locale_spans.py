"""Rules for what spans or names things in es, fr, it and pt-br: ranges ("3–5 %",
"9h–17h30", "lun.–vie."), lists of abbreviated days, abbreviated dates ("3 dic."),
twelve-hour times ("10:30 a. m."), telephone numbers, units and abbreviations.

A range is said with the words the language puts around its ends ("de 9 a 14", "du lundi au
vendredi", "dalle 9 alle 19", "das 8 às 17"); the preposition already in the sentence before
it chooses them ("del 3 al 5 %", "entre 3 y 5").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.locale_numbers import (
    NUMBER,
    Locale,
    before_next_word,
    is_thousands,
    keys,
    ordinal,
    say_date,
    say_money,
    scaled,
    words,
)

_WORD_BEFORE = re.compile(r"([\w'’]+)\s+$")
_WORDS = re.compile(r"\w+")


def word_before(m: re.Match[str]) -> str:
    """The word right before the match (only spaces between), lower-cased; "" if none."""
    found = _WORD_BEFORE.search(m.string, max(0, m.start() - 24), m.start())
    return found[1].lower() if found else ""


def _words_before(m: re.Match[str], count: int = 3) -> list[str]:
    return [w.lower() for w in _WORDS.findall(m.string, max(0, m.start() - 40), m.start())][-count:]


def _span(lead: str, first: str, joiner: str, second: str) -> str:
    if joiner == "-":  # "del tre-cinque per cento"
        return " ".join(filter(None, [lead, f"{first}-{second}"]))
    said = ""
    for part in (lead, first, joiner, second):
        if part:
            said += part if not said or said.endswith(("'", "’")) else " " + part
    return said


def _range_words(m: re.Match[str], locale: Locale, opener: str) -> tuple[str, str]:
    """The word opening the range (none after a preposition) and the one between its ends."""
    before = word_before(m)
    if before in locale.range_to_after:
        return "", locale.range_to_after[before]
    return ("" if before in locale.preposition_words else opener), locale.range_to


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def _cased(table: dict[str, str]) -> dict[str, str]:
    """Each written form also capitalized ("avda." and "Avda."), said capitalized alike."""
    return {**{_capital(k): _capital(v) for k, v in table.items()}, **table}


def _cased_index(table: dict[str, int]) -> dict[str, int]:
    return {**{_capital(k): i for k, i in table.items()}, **table}


def span_rules(locale: Locale) -> tuple[Rule, ...]:
    """The rules that must claim their stretch before the single forms (times, prices,
    numbers) claim its parts."""
    return (
        _phone_rule(locale),
        _time_span_rule(locale),
        _money_range_rule(locale),
        _amount_range_rule(locale),
        *_calendar_rules(locale),
        _day_month_rule(locale),
        *_twelve_hour_rules(locale),
        *_dot_time_rules(locale),
    )


def word_rules(locale: Locale) -> tuple[Rule, ...]:
    """Units after a number, Roman ordinals and abbreviations: after the numbers' rules."""
    found: list[Rule] = []
    if locale.units:
        found.append(_unit_rule(locale))
    if locale.roman_ordinals:
        found.append(_roman_ordinal_rule(locale))
    if locale.abbreviations:
        found.append(_abbreviation_rule(locale))
    return tuple(found)


_PUNCTUATION_NEXT = re.compile(r"\s*(?:[.,;:!?)]|$)")


def _abbreviation_rule(locale: Locale) -> Rule:
    """An abbreviation said as its word ("aprox.": "aproximadamente"). A reading that ends in a
    comma ("por exemplo," set off as the language's punctuation sets it) leaves the pause to
    punctuation already there."""
    table = _cased(locale.abbreviations)

    def say(m: re.Match[str]) -> str:
        said = table[m[0]]
        if said.endswith(",") and _PUNCTUATION_NEXT.match(m.string, m.end()):
            return said[:-1]
        return said

    return rule("abbreviation", keys(table), say)


# Telephone numbers: groups of digits after a word naming a telephone, said group by group.
# Bounded repeats keep a failed match from rescanning the text after it at every start.
_PHONE = r"\(?\d{1,5}\)?(?:[ \-]\(?\d{1,5}\)?){1,6}|\d{6,15}"
# "01 23 45 67 89": a French number in pairs is a telephone number without a word naming it.
_PAIRS = re.compile(r"0\d(?: \d\d){3,6}")


def _phone_rule(locale: Locale) -> Rule:
    cue = re.compile(r"(?:" + locale.phone_cues + r")\s*:?\s*$", re.IGNORECASE)

    def say(m: re.Match[str]) -> str | None:
        paired = locale.phone_pairs and _PAIRS.fullmatch(m[0])
        if not paired and not (
            locale.phone_cues and cue.search(m.string, max(0, m.start() - 24), m.start())
        ):
            return None
        groups = re.findall(r"\d+", m[0])
        if len(groups) == 1:  # "0123456789": in pairs (French) or threes
            size = 2 if locale.phone_pairs else 3
            groups = [groups[0][i : i + size] for i in range(0, len(groups[0]), size)]
        return ", ".join(_phone_group(g, locale) for g in groups)

    return rule("phone", _PHONE, say)


def _phone_group(digits: str, locale: Locale) -> str:
    if locale.phone_pairs and len(digits) == 2:  # "01 23": "zéro un, vingt-trois"
        if digits[0] == "0":
            return f"{words('0', locale)} {words(digits[1], locale)}"
        return words(digits, locale)
    return " ".join(words(d, locale) for d in digits)


# A span of clock times: "9:00–14:00", "9h–17h30", "8h–17h"; bare hours ("9–19") only after
# a word about opening hours.
_CLOCK = (
    r"(?P<h{n}>\d{{1,2}})(?:(?P<s{n}>[:.])(?P<m{n}>[0-5]\d)(?:\s?h(?:rs?)?\b)?"
    r"|(?P<x{n}>\s?h)(?P<n{n}>[0-5]\d)?)?"
)


def _time_span_rule(locale: Locale) -> Rule:
    say_end = locale.span_time or locale.say_time
    first_word, first_one, to_word, to_one = locale.time_span

    def say(m: re.Match[str]) -> str | None:
        ends = []
        for n in "12":
            hour, minute = int(m[f"h{n}"]), int(m[f"m{n}"] or m[f"n{n}"] or 0)
            if hour > 24:
                return None
            ends.append((hour, minute))
        marked = any(m[f"s{n}"] == ":" or m[f"x{n}"] for n in "12")
        dotted = any(m[f"s{n}"] == "." for n in "12")
        if not marked:
            # Bare hours ("9–19") need a word about hours, dotted ones ("9.00–13.00") that or
            # a word announcing a time ("dalle").
            cued = bool(set(_words_before(m)) & locale.hour_cue_words)
            if not (cued or (dotted and word_before(m) in locale.dot_time_words)):
                return None
        (h1, m1), (h2, m2) = ends
        before = word_before(m)
        lead = first_one if h1 == 1 else first_word
        joiner = to_one if h2 == 1 else to_word
        if before in locale.range_to_after:
            lead, joiner = "", locale.range_to_after[before]
        elif before in (first_word, first_one) or before in locale.preposition_words:
            lead = ""
        return _span(lead, say_end(h1, m1), joiner, say_end(h2, m2))

    return rule("time-span", _CLOCK.format(n=1) + r"\s?[–—]\s?" + _CLOCK.format(n=2), say)


def _amount_range_rule(locale: Locale) -> Rule:
    """A range of amounts ("2–3 mil €", "1,2–1,5 M€", "3–5 %", "3–1"): both ends in words."""
    scales = keys(locale.scale_forms)
    symbols = keys(k for k in locale.currency_forms if not k.isalpha())
    codes = keys(k for k in locale.currency_forms if k.isalpha())
    pattern = (
        rf"(?P<a>{NUMBER})(?:\s?(?P<sa>{scales})\b)?\s?(?P<dash>[–—-])\s?"
        rf"(?P<b>{NUMBER})(?:\s?(?P<sb>{scales})\b)?"
        rf"(?:\s?(?P<cur>{symbols})|\s(?P<code>{codes})\b|\s?(?P<pct>%))?"
    )

    def say(m: re.Match[str]) -> str | None:
        currency = m["cur"] or m["code"]
        measured = bool(currency or m["pct"] or m["sa"] or m["sb"])
        if m["dash"] == "-" and not measured:
            return None  # "3-1", "2345-7890": a score or a number, not said as a range
        lead, joiner = _range_words(m, locale, locale.range_from if measured else "")
        # "2–3 mil €": the first end is thousands too ("dos mil a tres mil euros").
        first_scale = m["sa"] or (m["sb"] if is_thousands(m["sb"], locale) else None)
        if m["pct"]:
            first, second = words(m["a"], locale), f"{words(m['b'], locale)} {locale.percent}"
        elif currency:
            first = scaled(m["a"], first_scale, locale)
            second = say_money(locale, currency, m["b"], m["sb"])
        elif m["sb"] or m["sa"]:
            first, second = scaled(m["a"], first_scale, locale), scaled(m["b"], m["sb"], locale)
        else:
            second = before_next_word(words(m["b"], locale), m.string, m.end(), locale)
            first = before_next_word(words(m["a"], locale), m.string, m.end(), locale)
        return _span(lead, first, joiner, second)

    return rule("amount-range", pattern, say)


def _money_range_rule(locale: Locale) -> Rule:
    """A range of prices with the currency first ("R$ 2 mil–3 mil", "$10–$20")."""
    scales = keys(locale.scale_forms)
    symbols = keys(k for k in locale.currency_forms if not k.isalpha())
    pattern = (
        rf"(?P<cur>{symbols})\s?(?P<a>{NUMBER})(?:\s?(?P<sa>{scales})\b)?\s?[–—]\s?"
        rf"(?:(?P=cur)\s?)?(?P<b>{NUMBER})(?:\s?(?P<sb>{scales})\b)?"
    )

    def say(m: re.Match[str]) -> str:
        lead, joiner = _range_words(m, locale, locale.range_from)
        first_scale = m["sa"] or (m["sb"] if is_thousands(m["sb"], locale) else None)
        first = scaled(m["a"], first_scale, locale)
        return _span(lead, first, joiner, say_money(locale, m["cur"], m["b"], m["sb"]))

    return rule("money-range", pattern, say)


def _calendar_rules(locale: Locale) -> list[Rule]:
    calendar = locale.calendar
    found: list[Rule] = []
    letters = {c: i for i, c in enumerate(calendar.weekday_letters)}
    for kind, names, abbreviations, (from_word, to_word) in (
        ("weekday", calendar.weekday_names, calendar.weekday_places, calendar.weekday_span),
        ("month", locale.month_names, calendar.month_places, calendar.month_span),
    ):
        short = _cased_index(abbreviations)
        index = {**_cased_index({name: i for i, name in enumerate(names)}), **short}
        marks = letters if kind == "weekday" else {}
        found.append(_calendar_range(locale, kind, names, index, marks, from_word, to_word))
        found.append(_calendar_list(locale, kind, names, short, marks))
    return found


def _calendar_range(
    locale: Locale,
    kind: str,
    names: Sequence[str],
    index: dict[str, int],
    letters: dict[str, int],
    from_word: str,
    to_word: str,
) -> Rule:
    """A range of days or months ("lun.–vie.", "L–V", "janv.–mars"), first to last."""
    name = keys([*index, *letters])

    def say(m: re.Match[str]) -> str | None:
        a, b = (index.get(m[g], letters.get(m[g], -1)) for g in ("a", "b"))
        if a == b or (m["a"] in letters and m["b"] in letters and a > b):
            return None
        lead = "" if word_before(m) in (*locale.preposition_words, from_word) else from_word
        first = names[a]
        if lead == "de" and locale.lang == "fr" and first[0] in "aeiou":
            return f"d'{first} {to_word} {names[b]}"  # "d'avril à juin"
        return _span(lead, first, to_word, names[b])

    return rule(f"{kind}-range", rf"(?P<a>{name})\.?\s?[–—-]\s?(?P<b>{name})\.?", say)


def _calendar_list(
    locale: Locale, kind: str, names: Sequence[str], short: dict[str, int], letters: dict[str, int]
) -> Rule:
    """A list of days or months ("sam. et dim.", "L, X y V"), each said by its name.
    Abbreviations need their period here (a bare "mar" is a word), and day letters must run in
    the week's order ("S, M y L" are sizes)."""
    item = r"(?:(?:" + keys(short) + r")\." + (rf"|[{''.join(letters)}]" if letters else "") + ")"
    joiners = keys(locale.calendar.list_words)
    item_re = re.compile(item)

    def say(m: re.Match[str]) -> str | None:
        items = item_re.findall(m[0])
        marks = [letters[i] for i in items if i in letters]
        if marks and (len(marks) != len(items) or marks != sorted(set(marks))):
            return None
        table = names
        if kind == "weekday" and word_before(m) in locale.calendar.plural_after_words:
            table = locale.calendar.weekday_plural_names  # "às terças e quintas"

        def name(x: re.Match[str]) -> str:
            written = x[0]
            i = letters[written] if written in letters else short[written.rstrip(".")]
            return table[i]

        return item_re.sub(name, m[0])

    return rule(f"{kind}-list", rf"{item}(?:(?:,\s?|\s(?:{joiners})\s){item}){{1,7}}", say)


def _twelve_hour_rules(locale: Locale) -> list[Rule]:
    twelve_hour = locale.twelve_hour
    if twelve_hour is None:
        return []

    def say(m: re.Match[str]) -> str:
        return twelve_hour(int(m["h"]), int(m["min"] or 0), m["ap"] in "pP")

    pattern = r"(?P<h>1[0-2]|0?[1-9])(?::(?P<min>[0-5]\d))?\s?(?P<ap>[aApP])(?:\.\s?[mM]\.|[mM]\b)"
    return [rule("twelve-hour", pattern, say)]


def _dot_time_rules(locale: Locale) -> list[Rule]:
    """A time written with a period ("alle 10.30"), after a word that announces a time."""
    if not locale.dot_time_words:
        return []

    def say(m: re.Match[str]) -> str | None:
        if word_before(m) not in locale.dot_time_words:
            return None
        return locale.say_time(int(m["h"]), int(m["min"]))

    return [rule("dot-time", r"(?P<h>[01]?\d|2[0-3])\.(?P<min>[0-5]\d)", say)]


def _day_month_rule(locale: Locale) -> Rule:
    """A day and an abbreviated month ("3 dic.", "15 sept. 2025", "10 out. 2025")."""
    short = _cased_index(locale.calendar.month_places)

    def say(m: re.Match[str]) -> str | None:
        day = int(m["d"])
        if not 1 <= day <= 31:
            return None
        year = int(m["y"]) if m["y"] else None
        return say_date(day, locale.month_names[short[m["mon"]]], year, locale)

    pattern = (
        rf"(?P<d>\d{{1,2}})(?:er|º|°)?\s(?:de\s)?(?P<mon>{keys(short)})\."
        r"(?:\s(?:de\s)?(?P<y>\d{4}))?"
    )
    return rule("day-month", pattern, say)


def _unit_rule(locale: Locale) -> Rule:
    """A number and a unit ("25 pb"): the unit by its name ("veinticinco puntos básicos")."""

    def say(m: re.Match[str]) -> str:
        one, many = locale.units[m["u"]]
        return f"{locale.before_noun(words(m['n'], locale))} {one if m['n'] == '1' else many}"

    return rule("unit", rf"(?P<n>{NUMBER})\s?(?P<u>{keys(locale.units)})", say)


_ROMAN = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def roman_value(numeral: str) -> int | None:
    if not numeral or not _ROMAN.fullmatch(numeral):
        return None
    total = 0
    for i, c in enumerate(numeral):
        value = _ROMAN_VALUES[c]
        following = _ROMAN_VALUES[numeral[i + 1]] if i + 1 < len(numeral) else 0
        total += -value if value < following else value
    return total


def _roman_ordinal_rule(locale: Locale) -> Rule:
    """A Roman numeral with an ordinal ending ("XXIe siècle"). One letter only if I, V or X
    ("Le", "Ce", "De", "Me" are words)."""

    def say(m: re.Match[str]) -> str | None:
        value = roman_value(m["r"])
        return ordinal(value, m["s"], locale) if value else None

    pattern = r"(?P<r>[IVXLC]{2,}|[IVX])(?P<s>" + locale.ordinal_suffixes + ")"
    return rule("roman-ordinal", pattern, say)

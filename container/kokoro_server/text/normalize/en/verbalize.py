"""English verbalizers: a number, a price, a time or a date in the words a person says.

Pure functions of their arguments; the context (is this a year? a code?) is the rules' job.
Numbers are put into words by num2words, in the corpus convention: no "and" inside a number
("one hundred fifty"), hyphens from twenty-one to ninety-nine.
"""

from __future__ import annotations

from num2words import num2words

from kokoro_server.text.normalize.en.tables import CURRENCIES, MONTHS

_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _words(text: str, british: bool) -> str:
    text = text.replace(",", "")
    return text if british else text.replace(" and ", " ")


def cardinal(number: str, british: bool = False) -> str:
    """'1,234' -> 'one thousand two hundred thirty-four'; '3.14' -> 'three point one four'."""
    number = number.replace(",", "").replace("−", "-")
    negative = number.startswith("-")
    number = number.lstrip("-+")
    whole, _, fraction = number.partition(".")
    # Beyond trillions nobody reads the number out: say its digits.
    words = digits(whole) if len(whole) > 15 else _words(num2words(int(whole or "0")), british)
    if fraction:
        words = ("" if not whole else words + " ") + "point " + digits(fraction)
    return ("minus " + words) if negative else words


def digits(number: str) -> str:
    return " ".join(_DIGITS[int(d)] for d in number if d.isdigit())


def ordinal(number: int, british: bool = False) -> str:
    return _words(str(num2words(number, to="ordinal")), british)


def year(number: int, british: bool = False) -> str:
    return _words(num2words(number, to="year"), british).replace("oh-", "oh ")


def in_pairs(number: str) -> str:
    """A number named rather than counted, said in pairs as people say room numbers,
    addresses, ports and HTTP statuses: '8080' -> 'eighty eighty', '1164' -> 'eleven
    sixty-four', '4200' -> 'forty-two hundred', '1001' -> 'ten oh one', '443' -> 'four
    forty-three', '404' -> 'four oh four', '300' and '3000' as counted; longer numbers digit
    by digit."""
    if len(number) == 4 and not number.startswith("0") and not number.endswith("000"):
        tail = number[2:]
        said = (
            "hundred"
            if tail == "00"
            else f"oh {cardinal(tail[1])}"
            if tail[0] == "0"
            else cardinal(tail)
        )
        return f"{cardinal(number[:2])} {said}"
    if len(number) == 3 and not number.startswith("0") and not number.endswith("00"):
        tail = f"oh {cardinal(number[2])}" if number[1] == "0" else cardinal(number[1:])
        return f"{cardinal(number[0])} {tail}"
    return cardinal(number) if len(number) <= 4 and not number.startswith("0") else digits(number)


def plural(count: str, singular: str, many: str) -> str:
    return singular if count.replace(",", "").lstrip("+-−") in ("1", "1.0") else many


def version(text: str) -> str:
    """'3.10' -> 'three point ten', '22.04' -> 'twenty-two point oh four'."""
    parts = []
    for part in text.split("."):
        if len(part) > 1 and part.startswith("0"):
            parts.append("oh " + digits(part[1:]) if len(part) == 2 else digits(part))
        else:
            parts.append(cardinal(part))
    return " point ".join(parts)


def money(
    code: str,
    amount: str,
    scale: str | None = None,
    adjective: bool = False,
    british: bool = False,
) -> str:
    one, many, sub_one, sub_many = CURRENCIES[code]
    amount = amount.replace(",", "")
    if scale:
        return f"{cardinal(amount, british)} {scale} {one if adjective else many}"
    whole, _, cents = amount.partition(".")
    if cents and sub_one and len(cents) <= 2:
        value = int(cents.ljust(2, "0"))
        sub = sub_one if value == 1 else sub_many
        cents_words = f"{cardinal(str(value), british)} {sub}"
        if int(whole or "0") == 0:
            return cents_words
        unit = plural(whole, one, many)
        if value == 0:
            return f"{cardinal(whole, british)} {unit}"
        return f"{cardinal(whole, british)} {unit} and {cents_words}"
    return f"{cardinal(amount, british)} {one if adjective else plural(amount, one, many)}"


def clock(hour: int, minute: str | None, ampm: str | None, british: bool = False) -> str:
    """9, '30', 'pm' -> 'nine thirty P M'; 14, '00', None -> 'fourteen hundred'."""
    words = cardinal(str(hour), british)
    if minute is not None and int(minute):
        words += " " + (f"oh {digits(minute[1])}" if minute[0] == "0" else cardinal(minute))
    elif minute is not None and not ampm and hour == 0:
        words = "twelve A M" if minute == "00" else words
    elif minute is not None and not ampm and hour <= 12:
        words += " o'clock"
    elif minute is not None and not ampm:
        words += " hundred"
    if ampm:
        words += " " + ("A M" if ampm[0] in "Aa" else "P M")
    return words


def date(
    month: int, day: int | None, year_number: int | None, day_first: bool, british: bool
) -> str:
    name = MONTHS[month - 1]
    if day and day_first:
        said = f"{ordinal(day, british)} of {name}"
    elif day:
        said = f"{name} {ordinal(day, british)}"
    else:
        said = name
    if year_number is not None:
        return f"{said}, {year(year_number, british)}" if day else f"{said} {year(year_number)}"
    return said


FRACTION_NAMES = {2: ("half", "halves"), 4: ("quarter", "quarters")}


def fraction(top: int, bottom: int, british: bool = False) -> str:
    if bottom in FRACTION_NAMES:
        one, many = FRACTION_NAMES[bottom]
    else:
        one = ordinal(bottom, british)
        many = one + "s"
    return f"{cardinal(str(top), british)} {one if top == 1 else many}"


def mixed(whole: str, top: int, bottom: int, british: bool = False) -> str:
    """'3 1/2' -> 'three and a half'."""
    part = fraction(top, bottom, british)
    if top == 1:
        part = "a " + part.removeprefix("one ")
    return f"{cardinal(whole, british)} and {part}"


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman(numeral: str) -> int:
    total = 0
    values = [_ROMAN[c] for c in numeral.upper()]
    for i, value in enumerate(values):
        total += -value if i + 1 < len(values) and values[i + 1] > value else value
    return total


def is_roman(numeral: str) -> bool:
    import re

    return bool(
        numeral
        and re.fullmatch(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})", numeral.upper())
    )

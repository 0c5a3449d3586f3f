"""English text normalization: what a person says for prices, times, dates, phone numbers...

Each rule is a regular expression for one kind of written form (money, a time, a phone
number) and a function that says it; numbers are put into words by `num2words`. Rules run
over the whole sentence, so a form may span words ("10:30 a.m.", "May 5, 2026"), and the
result keeps the written form next to what is said for it: `$29.99` stays one written word
whose spoken form is "twenty-nine dollars and ninety-nine cents". Text no rule claims is
left to the G2P as written. See docs/container.md for what is covered and the choice of
this approach over NeMo's and gruut's normalizers (bench/normalizer_bench.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from num2words import num2words


@dataclass(frozen=True)
class Written:
    text: str  # the written form, one or more whitespace-separated words of the sentence
    spoken: str  # what is said for it (equal to text when nothing needed saying differently)
    start: int = 0  # where the written form is in the sentence
    end: int = 0


# ---- numbers ---------------------------------------------------------------------------

_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def cardinal(number: str, british: bool = False) -> str:
    """'1,234' -> 'one thousand two hundred thirty-four'; '3.14' -> 'three point one four'."""
    number = number.replace(",", "")
    negative = number.startswith(("-", "−"))
    number = number.lstrip("-−+")
    whole, _, fraction = number.partition(".")
    # Beyond trillions nobody reads the number out: say its digits.
    words = digits(whole) if len(whole) > 15 else _words(num2words(int(whole or "0")), british)
    if fraction:
        words = ("" if not whole else words + " ") + "point " + digits(fraction)
    return ("minus " + words) if negative else words


def _words(text: str, british: bool) -> str:
    text = text.replace(",", "")
    return text if british else text.replace(" and ", " ")


def digits(number: str) -> str:
    return " ".join(_DIGITS[int(d)] for d in number if d.isdigit())


def ordinal(number: int) -> str:
    return str(num2words(number, to="ordinal")).replace(",", "").replace(" and ", " ")


def year(number: int, british: bool = False) -> str:
    return _words(num2words(number, to="year"), british).replace("oh-", "oh ")


def _plural(count: str, singular: str, plural: str) -> str:
    return singular if count.replace(",", "").lstrip("+-") in ("1", "1.0") else plural


# ---- the rules -------------------------------------------------------------------------

_MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"Sept": "September"}
_MONTH = r"(?P<month>" + "|".join(_MONTHS + list(_MONTH_ABBR)) + r")\.?"
_AMPM = r"(?P<ampm>[AaPp]\.?\s?[Mm]\b\.?)"

# (symbol, singular, plural, sub-unit singular, sub-unit plural)
_CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "US$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", "", ""),
    "₹": ("rupee", "rupees", "paisa", "paise"),
    "USD": ("dollar", "dollars", "cent", "cents"),
    "EUR": ("euro", "euros", "cent", "cents"),
    "GBP": ("pound", "pounds", "penny", "pence"),
    "JPY": ("yen", "yen", "", ""),
}
_SCALES = {
    "k": "thousand",
    "K": "thousand",
    "M": "million",
    "m": "million",
    "mn": "million",
    "B": "billion",
    "bn": "billion",
    "T": "trillion",
}
_SCALE_WORDS = ("thousand", "million", "billion", "trillion")

_UNITS = {  # written unit: (singular, plural)
    "km": ("kilometer", "kilometers"),
    "m": ("meter", "meters"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "kg": ("kilogram", "kilograms"),
    "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"),
    "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "W": ("watt", "watts"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "V": ("volt", "volts"),
    "mph": ("mile per hour", "miles per hour"),
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "ms": ("millisecond", "milliseconds"),
    "sec": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
    "h": ("hour", "hours"),
}

_ABBREVIATIONS = {
    "Mr.": "mister",
    "Mrs.": "missus",
    "Ms.": "miz",
    "Prof.": "professor",
    "Jr.": "junior",
    "Sr.": "senior",
    "vs.": "versus",
    "vs": "versus",
    "etc.": "et cetera",
    "e.g.": "for example",
    "i.e.": "that is",
    "approx.": "approximately",
    "Inc.": "incorporated",
    "Ltd.": "limited",
    "Corp.": "corporation",
    "Ave.": "avenue",
    "Blvd.": "boulevard",
    "Mt.": "mount",
    "Dept.": "department",
    "Gov.": "governor",
    "Sen.": "senator",
    "Rep.": "representative",
    "Gen.": "general",
    "Capt.": "captain",
    "Sgt.": "sergeant",
    "Lt.": "lieutenant",
    "w/": "with",
    "w/o": "without",
    "&": "and",
    "+": "plus",
    "=": "equals",
    "@": "at",
    "%": "percent",
}
_FRACTIONS = {2: ("half", "halves"), 4: ("quarter", "quarters")}

# A form starts where a word starts (after whitespace or opening punctuation) and ends where
# a word ends (before whitespace, closing punctuation or the end).
_START = r"(?<![^\s(\[{\"'“‘«])"
_END = r"(?=[.,;:!?)\]}\"'”’»…]*(?:\s|$))"
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"


def _say_money(m: re.Match[str], british: bool) -> str:
    groups = m.groupdict()
    one, many, sub_one, sub_many = _CURRENCIES[groups["cur"] or groups["code"]]
    amount, scale = groups["amount"] or groups["amount2"], groups["scale"]
    sign = "minus " if groups["neg"] else ""
    if scale:
        scale = _SCALES.get(scale, scale.lower())
        return f"{sign}{cardinal(amount, british)} {scale} {one if _adjective(m) else many}"
    whole, _, cents = amount.replace(",", "").partition(".")
    if cents and sub_one and len(cents) <= 2:
        cents_value = int(cents.ljust(2, "0"))
        cents_words = f"{cardinal(str(cents_value), british)} " + (
            sub_one if cents_value == 1 else sub_many
        )
        if int(whole or "0") == 0:
            return sign + cents_words
        if cents_value == 0:
            return f"{sign}{cardinal(whole, british)} {_plural(whole, one, many)}"
        return f"{sign}{cardinal(whole, british)} {_plural(whole, one, many)} and {cents_words}"
    return f"{sign}{cardinal(amount, british)} {_plural(amount, one, many)}"


def _say_time(m: re.Match[str], british: bool) -> str:
    hour, minute = int(m["hour"]), m["minute"] or None
    ampm = m["ampm"]
    words = cardinal(str(hour), british)
    if minute is not None and int(minute):
        words += " " + (f"oh {digits(minute[1])}" if minute[0] == "0" else cardinal(minute))
    elif minute is not None and not ampm and hour <= 12:
        words += " o'clock"
    elif minute is not None and not ampm:
        words += " hundred"
    if m.groupdict().get("second"):
        words += f" and {cardinal(m['second'])} seconds"
    if ampm:
        words += " " + ("a m" if ampm[0] in "Aa" else "p m")
    return words


_CLOCK = re.compile(r"(?P<hour>\d{1,2})(?::(?P<minute>\d\d))?(?P<second>)\s?" + _AMPM + "?")


def _say_clock(text: str, british: bool) -> str:
    m = _CLOCK.fullmatch(text.strip())
    return _say_time(m, british) if m else text


def _say_date(month: str, day: str | None, year_text: str | None, day_first: bool) -> str:
    month = _MONTH_ABBR.get(month, month)
    parts = []
    if day and day_first:
        parts.append(f"{ordinal(int(day))} of {month}")
    elif day:
        parts.append(f"{month} {ordinal(int(day))}")
    else:
        parts.append(month)
    if year_text:
        parts.append(year(int(year_text)))
    return ", ".join(parts) if day and year_text else " ".join(parts)


def _the(m: re.Match[str]) -> str:
    """'5 May' is said 'the fifth of May', unless the text already says 'the'."""
    return "" if re.search(r"\bthe\s+$", m.string[: m.start()], re.IGNORECASE) else "the "


def _say_numeric_date(m: re.Match[str], british: bool) -> str:
    first, second = int(m["a"]), int(m["b"])
    month, day = (second, first) if british else (first, second)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return m[0]
    return (_the(m) if british else "") + _say_date(_MONTHS[month - 1], str(day), m["y"], british)


def _say_phone(m: re.Match[str], british: bool) -> str:
    text = m[0]
    groups = re.findall(r"\+?\d+", text)
    said = []
    for group in groups:
        prefix = "plus " if group.startswith("+") else ""
        number = group.lstrip("+")
        said.append(prefix + ("eight hundred" if number == "800" else digits(number)))
    return ", ".join(said)


def _say_url(m: re.Match[str], british: bool) -> str:
    text = re.sub(r"^https?://", "", m[0]).rstrip("/")
    if text.lower().startswith("www."):
        text = "w w w." + text[4:]
    return _say_address(text)


def _say_address(text: str) -> str:
    symbols = {".": " dot ", "/": " slash ", "-": " dash ", "_": " underscore ", "@": " at "}
    symbols |= {"+": " plus ", ":": " colon ", "?": " question mark ", "=": " equals "}
    symbols |= {"#": " hash ", "&": " and ", "~": " tilde "}
    out = "".join(symbols.get(c, c) for c in text)
    out = re.sub(r"\d+", lambda d: " " + digits(d[0]) + " ", out)
    return re.sub(r"\s+", " ", out).strip()


def _say_percent(m: re.Match[str], british: bool) -> str:
    return f"{cardinal(m['n'], british)} percent"


def _say_temperature(m: re.Match[str], british: bool) -> str:
    scale = {"C": " Celsius", "F": " Fahrenheit", "": ""}[(m["scale"] or "").upper()]
    return f"{cardinal(m['n'], british)} {_plural(m['n'], 'degree', 'degrees')}{scale}"


def _say_measure(m: re.Match[str], british: bool) -> str:
    one, many = _UNITS[m["unit"]]
    value = m["n"]
    return f"{cardinal(value, british)} {one if _adjective(m) else _plural(value, one, many)}"


def _adjective(m: re.Match[str]) -> bool:
    """'a 2 TB drive', 'a $2B deal': after 'a'/'an' the unit is said in the singular."""
    return bool(re.search(r"\ban?\s+$", m.string[: m.start()], re.IGNORECASE))


def _say_scaled(m: re.Match[str], british: bool) -> str:
    return f"{cardinal(m['n'], british)} {_SCALES[m['scale']]}"


def _say_decade(m: re.Match[str], british: bool) -> str:
    century, decade = m["century"], int(m["decade"])
    tens = {0: "hundreds", 10: "tens"}.get(
        decade, num2words(decade).replace("y", "ies") if decade else ""
    )
    if not century:
        return tens
    if century in ("20",) and decade == 0:
        return "two thousands"
    return f"{cardinal(century)} {tens}"


def _say_range(m: re.Match[str], british: bool) -> str:
    a, b = m["a"], m["b"]

    def say(n: str) -> str:
        return year(int(n), british) if _looks_like_year(n) and _looks_like_year(a) else cardinal(n)

    return f"{say(a)} to {say(b)}"


def _looks_like_year(n: str) -> bool:
    return len(n) == 4 and 1100 <= int(n) <= 2099


def _say_fraction(m: re.Match[str], british: bool) -> str:
    top, bottom = int(m["top"]), int(m["bottom"])
    if bottom in _FRACTIONS:
        one, many = _FRACTIONS[bottom]
    else:
        one = ordinal(bottom)
        many = one + "s"
    return f"{cardinal(str(top), british)} {one if top == 1 else many}"


def _say_ordinal(m: re.Match[str], british: bool) -> str:
    return ordinal(int(m["n"].replace(",", "")))


def _say_year(m: re.Match[str], british: bool) -> str:
    return year(int(m["n"]), british)


def _say_number(m: re.Match[str], british: bool) -> str:
    return cardinal(m[0], british)


def _say_version(m: re.Match[str], british: bool) -> str:
    said = " point ".join(cardinal(part) for part in m["v"].split("."))
    return ("version " if m["prefix"] else "") + said


def _say_initialism(m: re.Match[str], british: bool) -> str:
    return " ".join(m[0].replace(".", ""))


def _say_title(m: re.Match[str], british: bool) -> str:
    word = m["title"]
    following_name = bool(m["name"])
    if word == "Dr":
        return "Doctor" if following_name else "Drive"
    if word == "St":
        return "Saint" if following_name else "Street"
    return "number" if word in ("No", "no") else word


def _say_abbreviation(m: re.Match[str], british: bool) -> str:
    return _ABBREVIATIONS[m[0]]


def _say_numbered(m: re.Match[str], british: bool) -> str:
    return f"number {cardinal(m['n'], british)}"


def _say_times(m: re.Match[str], british: bool) -> str:
    return f"{cardinal(m['n'], british)} times"


def _say_dimensions(m: re.Match[str], british: bool) -> str:
    return f"{cardinal(m['a'], british)} by {cardinal(m['b'], british)}"


_Say = Callable[[re.Match[str], bool], str]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    say: _Say
    title_span: bool = False  # the match's first group only is replaced (titles before names)


def _rule(name: str, pattern: str, say: _Say, bounded: bool = True) -> _Rule:
    if bounded:
        pattern = _START + "(?:" + pattern + ")" + _END
    return _Rule(name, re.compile(pattern), say)


_ABBREVIATION_KEYS = "|".join(
    re.escape(k) for k in sorted(_ABBREVIATIONS, key=len, reverse=True) if k[0].isalpha()
)
_SYMBOL_KEYS = "|".join(re.escape(k) for k in _ABBREVIATIONS if not k[0].isalpha())
_UNIT_KEYS = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))

# Order matters: the first rule to claim a stretch of text wins it.
_RULES: tuple[_Rule, ...] = (
    _rule("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", lambda m, b: _say_address(m[0])),
    _rule(
        "url",
        r"(?:https?://|www\.)[^\s]*[^\s.,;:!?)\]'\"”’]"
        r"|[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|ai|dev|edu|gov|app|info|co\.uk|co)"
        r"(?:/[^\s]*[^\s.,;:!?)\]'\"”’])?",
        _say_url,
    ),
    _rule(
        "phone",
        r"(?:\+\d{1,3}[ .-]?)?(?:\(\d{3}\)[ .-]?|\d{3}[.-])\d{3}[.-]\d{4}"
        r"|\+\d{1,3}(?:[ .-]\d{2,4}){2,4}|1-800-\d{3}-\d{4}|\d{3}-\d{4}",
        _say_phone,
    ),
    _rule(
        "iso-date",
        r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})",
        lambda m, b: (
            _say_date(_MONTHS[int(m["mo"]) - 1], str(int(m["d"])), m["y"], b)
            if 1 <= int(m["mo"]) <= 12
            else m[0]
        ),
    ),
    _rule("numeric-date", r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})", _say_numeric_date),
    _rule(
        "month-day",
        _MONTH + r"\s(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,?\s(?P<y>\d{4}))?",
        lambda m, b: _say_date(m["month"], m["d"], m["y"], False),
    ),
    _rule(
        "day-month",
        r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s(?:of\s)?" + _MONTH + r"(?:,?\s(?P<y>\d{4}))?",
        lambda m, b: _the(m) + _say_date(m["month"], m["d"], m["y"], True),
    ),
    _rule(
        "month-year",
        _MONTH + r"\s(?P<y>\d{4})",
        lambda m, b: f"{_MONTH_ABBR.get(m['month'], m['month'])} {year(int(m['y']), b)}",
    ),
    _rule(
        "time",
        r"(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?::(?P<second>[0-5]\d))?"
        r"(?:\s?" + _AMPM + ")?",
        _say_time,
    ),
    _rule("time-ampm", r"(?P<hour>1[0-2]|0?[1-9])(?P<minute>)\s?" + _AMPM, _say_time),
    _rule(
        "time-range",
        r"(?P<a>(?:1[0-2]|0?[1-9])(?::[0-5]\d)?\s?(?:[AaPp]\.?[Mm]\.?)?)\s?[-–]\s?"
        r"(?P<b>(?:1[0-2]|0?[1-9])(?::[0-5]\d)?\s?[AaPp]\.?[Mm]\.?)",
        lambda m, b: f"{_say_clock(m['a'], b)} to {_say_clock(m['b'], b)}",
    ),
    _rule(
        "money",
        r"(?P<neg>-)?(?P<cur>US\$|[$€£¥₹])\s?(?P<amount>" + _NUMBER + r")"
        r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|[kKMBT])\b)?"
        r"|(?P<amount2>" + _NUMBER + r")\s?(?P<code>USD|EUR|GBP|JPY)",
        _say_money,
    ),
    _rule("percent", r"(?P<n>[-−]?(?:" + _NUMBER + r"))\s?%", _say_percent),
    _rule(
        "temperature",
        r"(?P<n>[-−]?(?:" + _NUMBER + r"))\s?°\s?(?P<scale>[CcFf])?",
        _say_temperature,
    ),
    _rule(
        "measure",
        r"(?P<n>[-−]?(?:" + _NUMBER + r"))\s?(?P<unit>" + _UNIT_KEYS + r")",
        _say_measure,
    ),
    _rule("dimensions", r"(?P<a>\d+)\s?[x×]\s?(?P<b>\d+)", _say_dimensions),
    _rule("times", r"(?P<n>\d+(?:\.\d+)?)x", _say_times),
    _rule("decade", r"(?:'|’)?(?P<century>1[1-9]|20)?(?P<decade>\d0)s", _say_decade),
    _rule(
        "version", r"(?P<prefix>[vV])?(?P<v>\d+(?:\.\d+){2,}|(?<=[vV])\d+(?:\.\d+)+)", _say_version
    ),
    _rule("range", r"(?P<a>\d{1,4})\s?[-–—]\s?(?P<b>\d{1,4})", _say_range),
    _rule("twenty-four-seven", r"24/7", lambda m, b: "twenty-four seven"),
    _rule("fraction", r"(?P<top>\d{1,2})/(?P<bottom>[2-9]|1[0-6]|32|64|100)", _say_fraction),
    _rule("ordinal", r"(?P<n>\d{1,3}(?:,\d{3})*|\d+)(?:st|nd|rd|th)", _say_ordinal),
    _rule("numbered", r"#(?P<n>\d+)", _say_numbered),
    _rule("scaled", r"(?P<n>" + _NUMBER + r")(?P<scale>[kKMB]|bn)", _say_scaled),
    _rule("year", r"(?P<n>1[1-9]\d\d|20\d\d)", _say_year),
    _rule("number", r"[-−]?(?:" + _NUMBER + r")|[-−]?\.\d+", _say_number),
    _rule(
        "title",
        r"(?P<title>Dr|St|No|no)\.(?=(?P<name>\s+(?:[A-Z]|\d))?)",
        _say_title,
        bounded=False,
    ),
    _rule("initialism", r"(?:[A-Z]\.){2,}", _say_initialism),
    _rule("abbreviation", r"(?:" + _ABBREVIATION_KEYS + r")", _say_abbreviation),
    _rule("symbol", r"(?:" + _SYMBOL_KEYS + r")", _say_abbreviation),
)


def _title_start(rule: _Rule, text: str, start: int) -> bool:
    if rule.name != "title":
        return True
    return start == 0 or not (text[start - 1].isalnum())


def _claims(text: str, british: bool) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, spoken) for every stretch a rule claims, in order."""
    taken = [False] * len(text)
    found: list[tuple[int, int, str]] = []
    for rule in _RULES:
        for m in rule.pattern.finditer(text):
            start, end = m.start(), m.end()
            if start == end or any(taken[start:end]) or not _title_start(rule, text, start):
                continue
            spoken = rule.say(m, british)
            if spoken == m[0]:
                continue
            # A form that swallowed the sentence's final period gives it back.
            if m[0].endswith(".") and not text[end:].strip() and rule.name != "title":
                spoken += "."
            found.append((start, end, spoken))
            for i in range(start, end):
                taken[i] = True
    return sorted(found)


def normalize(text: str, british: bool = False) -> list[Written]:
    """The sentence as written words (whitespace-separated, or a form spanning several),
    each with what is said for it."""
    claims = _claims(text, british)
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    out: list[Written] = []
    i = 0
    claim_index = 0
    while i < len(words):
        start, end = words[i]
        # Take in every word a claim starting inside this group reaches into.
        spoken_parts: list[str] = []
        cursor = start
        group_end = end
        while claim_index < len(claims) and claims[claim_index][0] < group_end:
            c_start, c_end, spoken = claims[claim_index]
            while c_end > group_end and i + 1 < len(words):
                i += 1
                group_end = words[i][1]
            spoken_parts.append(text[cursor:c_start])
            spoken_parts.append(spoken)
            cursor = c_end
            claim_index += 1
        spoken_parts.append(text[cursor:group_end])
        written = text[start:group_end]
        spoken = re.sub(r"\s+", " ", "".join(spoken_parts)).strip()
        out.append(Written(written, spoken, start, group_end))
        i += 1
    return out


def spoken_text(text: str, british: bool = False) -> str:
    """The whole sentence as it is said (the `normalized` field of the phonemes format)."""
    return " ".join(w.spoken for w in normalize(text, british) if w.spoken)

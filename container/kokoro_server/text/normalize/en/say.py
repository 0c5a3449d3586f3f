"""How each English written form is said, and the context that decides it: the functions
and patterns the rule tables (families/) call.

Rules that need context look at the neighbouring words (context.py): "in 1999" is a year,
"1999 invitations" a count; "call 911" is dialled digit by digit; "Charles III" is "the
Third" and "Part III" "three".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kokoro_server.text.normalize.core import END, START
from kokoro_server.text.normalize.en import verbalize as v
from kokoro_server.text.normalize.en.context import (
    after,
    after_article,
    before,
    next_word,
    preceding,
    previous_word,
    sentence_has,
)
from kokoro_server.text.normalize.en.tables import (
    ABBREVIATIONS,
    ADDRESS_LABELS,
    CURRENCIES,
    DAY_ABBR,
    DAYS,
    MONTH_ABBR,
    MONTHS,
    PLACE_WORDS,
    RATE_WORDS,
    REGNAL_NAMES,
    ROMAN_COUNTED,
    SCALES,
    SERVICE_NUMBERS,
    SIZES,
    SYMBOLS,
    UNICODE_FRACTIONS,
    UNITS,
    US_STATE_NAMES,
    US_STATES,
)
from kokoro_server.text.normalize.en.technical import (
    LENGTH_UNITS,
    article_before,
    say_exponent,
)

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
MONTH = r"(?P<month>" + "|".join(MONTHS + list(MONTH_ABBR)) + r")\.?"
AMPM = r"(?P<ampm>[AaPp]\.?\s?[Mm]\b\.?)"
_AMPM_B = r"(?P<ampm_b>[AaPp]\.?\s?[Mm]\b\.?)"


def alternatives(table: Iterable[str], alpha: bool | None = None) -> str:
    """A regex alternation of the table's keys, longest first so a longer key wins."""
    keys = sorted(table, key=len, reverse=True)
    if alpha is not None:
        keys = [k for k in keys if k[0].isalpha() == alpha]
    return "|".join(re.escape(k) for k in keys)


CURRENCY_SYMBOLS = alternatives({k for k in CURRENCIES if not k.isalpha() or len(k) < 3})
CURRENCY_CODES = alternatives({k for k in CURRENCIES if k.isalpha() and len(k) == 3})
SCALE = r"(?P<scale>thousand|million|billion|trillion|bn|mn|tn|MM|[kKMBTm]\b)"
UNIT = alternatives(UNITS)

# Words after which a number is a year, and words that follow a year.
_YEAR_BEFORE = {
    "in", "since", "by", "from", "until", "till", "before", "after", "year", "early", "late",
    "mid", "spring", "summer", "fall", "autumn", "winter", "circa", "ca.", "c.", "est.", "©",
    "copyright", "(", "during",
}  # fmt: skip
# After these a number is a year only when a year came just before ("from 2009 to 2015").
_YEAR_JOINS = {"to", "through", "and", "until", "till"}
_YEAR_KINDS = {"tax", "fiscal", "school", "academic", "model", "calendar", "financial"}
_YEAR_AFTER = {"ad", "bc", "bce", "ce", "a.d.", "b.c.", "season", "tax", "census", "election",
               "olympics", "model", "edition", "vintage", "budget", "fiscal", "world",
               "earthquake", "flood", "fire", "crash", "recession", "hurricane", "storm",
               "pandemic", "outbreak", "war", "revolution", "treaty", "act", "campaign",
               "tournament", "championship", "cup", "games", "expedition"}  # fmt: skip
_COUNTED_NOUN = re.compile(
    r"(?!(?:was|is|has|does|as|its|this|thus|plus|minus|us|always|always|s)$)[a-z]+s"
    r"|people|staff|data|feet|foot|new|more|other|of"
)
# "the summer of 1969", "the third quarter of 2026": "of" after these makes a year.
_OF_YEAR = {"quarter", "summer", "spring", "fall", "autumn", "winter", "class", "end", "half",
            "beginning", "start", "middle", "rest", "year", "month", "q1", "q2", "q3", "q4",
            *(m.lower() for m in MONTHS)}  # fmt: skip
# Words that make the next number a code said digit by digit.
_CODE_WORDS = {
    "code", "pin", "id", "number", "no.", "#", "order", "account", "card", "ending",
    "extension", "ext.", "ext", "room", "gate", "flight", "tracking", "case", "ticket",
    "reference", "ref", "ref.", "confirmation", "serial", "invoice", "reservation", "policy",
    "member", "customer", "routing", "zip", "postal", "http", "error", "status", "badge",
    "unit", "suite", "apt", "apartment", "stateroom", "cabin", "locker", "is",
}  # fmt: skip

# Words before a number that names a room or a unit: said in pairs ("room twelve oh four").
_NAMED_NUMBER_BEFORE = {"room", "rm", "suite", "ste", "apt", "apartment", "office", "unit"}

_FUNCTION_WORDS = {
    "of", "in", "on", "at", "to", "from", "per", "past", "round", "for", "with", "and", "or",
    "but", "so", "by", "into", "over", "under", "away", "up", "down", "long", "wide", "tall",
    "high", "deep", "thick", "each", "a", "an", "the", "is", "are", "was", "were", "every",
    "total", "apart", "ahead", "behind", "left", "more", "less", "than", "later", "earlier",
    "ago", "old", "off", "out", "north", "south", "east", "west", "then", "when", "if",
    "before", "after", "until", "while", "as", "it", "that", "this", "which", "will", "can",
    "should", "must", "may", "would", "could", "you", "i", "we", "they", "he", "she", "not",
    "about", "around", "above", "below", "between", "across", "along", "within", "without",
    "too", "very", "just", "only", "plus", "minus", "times",
}  # fmt: skip


Say = Callable[[re.Match[str]], "str | None"]


def variant(british: bool) -> Callable[[Callable[[re.Match[str], bool], str | None]], Say]:
    """Binds a say function that depends on the English variant to one variant."""

    def bind(say: Callable[[re.Match[str], bool], str | None]) -> Say:
        return lambda m: say(m, british)

    return bind


# ---- addresses -------------------------------------------------------------------------

_SPELLED_TLDS = {"io", "ai", "uk", "us", "ca", "de", "fr", "jp", "cn", "in", "tv", "eu", "ly"}


def say_address(text: str) -> str:
    symbols = {".": " dot ", "/": " slash ", "-": " dash ", "_": " underscore ", "@": " at "}
    symbols |= {"+": " plus ", "?": " question mark ", "=": " equals ", "#": " hash "}
    symbols |= {"&": " and ", "~": " tilde "}
    # A port (its number words lose their hyphens, which the symbols below would read).
    text = re.sub(r":(\d+)", lambda p: " colon " + v.in_pairs(p[1]).replace("-", " ") + " ", text)
    out = "".join(symbols.get(c, c) for c in text)
    out = re.sub(r"[A-Za-z]+", lambda w: ADDRESS_LABELS.get(w[0].lower(), w[0]), out)
    # A language or country subdomain ("en.wikipedia.org") is spelled.
    out = re.sub(r"^([a-z]{2}) dot (?=\w+ dot )", lambda w: " ".join(w[1].upper()) + " dot ", out)
    out = re.sub(r"\d+", lambda d: " " + v.digits(d[0]) + " ", out)
    out = re.sub(
        r"\bdot (\w+)\b",
        lambda t: "dot " + (" ".join(t[1].upper()) if t[1] in _SPELLED_TLDS else t[1]),
        out,
    )
    return re.sub(r"\s+", " ", out).strip()


def say_url(m: re.Match[str]) -> str:
    text = re.sub(r"^(?:https?|s?ftp)://", "", m[0]).rstrip("/")
    if text.lower().startswith("www."):
        text = "w w w." + text[4:]
    return say_address(text)


def say_ip(m: re.Match[str]) -> str:
    said = " dot ".join(v.digits(part) for part in m["ip"].split("."))
    return said + (f" colon {v.in_pairs(m['port'])}" if m["port"] else "")


def say_file(m: re.Match[str]) -> str:
    return f"{m['stem']} dot {m['ext']}"


def say_dotfile(m: re.Match[str]) -> str:
    """'.env' -> 'dot env', '.env.local' -> 'dot env dot local' (a dotfile's name)."""
    return " ".join(f"dot {part}" if part else "" for part in m[0].split(".")).strip()


# ---- key combinations ------------------------------------------------------------------

_KEY_NAMES = {
    "ctrl": "control", "control": "control", "alt": "alt", "shift": "shift", "cmd": "command",
    "command": "command", "opt": "option", "option": "option", "win": "windows",
    "super": "super", "meta": "meta", "fn": "function", "esc": "escape", "del": "delete",
    "enter": "enter", "return": "return", "tab": "tab", "space": "space",
    "backspace": "backspace", "delete": "delete", "escape": "escape", "home": "home",
    "end": "end", "pgup": "page up", "pgdn": "page down", "up": "up", "down": "down",
    "left": "left", "right": "right", "ins": "insert", "insert": "insert",
}  # fmt: skip
_MODIFIER = r"(?:Ctrl|Control|Alt|Shift|Cmd|Command|Opt|Option|Win|Super|Meta|Fn)"
_KEY = r"(?:" + "|".join(sorted(_KEY_NAMES, key=len, reverse=True)) + r"|F\d{1,2}|[A-Za-z0-9])"
KEY_COMBO = _MODIFIER + r"(?:\+" + _KEY + r")+"


def say_keys(m: re.Match[str]) -> str:
    """'Ctrl+C' -> 'Control C', 'Cmd+Shift+P' -> 'Command Shift P': keys pressed together
    are named one after another, as people say them."""
    said = []
    for key in m[0].split("+"):
        name = _KEY_NAMES.get(key.lower())
        if name:
            said.append(name.capitalize())
        elif key.isdigit():
            said.append(v.cardinal(key))
        elif len(key) > 1:  # a function key: F4
            said.append("F " + v.cardinal(key[1:]))
        else:
            said.append(key.upper())
    return " ".join(said)


# ---- phone numbers and codes -----------------------------------------------------------


def say_phone(m: re.Match[str]) -> str:
    said = []
    for group in re.findall(r"\+?\d+", m[0]):
        prefix = "plus " if group.startswith("+") else ""
        number = group.lstrip("+")
        said.append(prefix + ("eight hundred" if number == "800" else v.digits(number)))
    return ", ".join(said)


def spell_code(text: str) -> str:
    """'K7Q2XP' -> 'K seven Q two X P'; 'SN-4471-B' -> 'S N four four seven one B'."""
    out = []
    for piece in re.findall(r"\d+|[A-Za-z]+", text):
        if piece.isdigit():
            out.append(v.digits(piece))
        elif piece.isupper() or len(piece) == 1:
            out.append(" ".join(piece.upper()))
        else:
            out.append(piece)
    return " ".join(out)


_OFFER_WORDS = r"\b(?:promo|coupon|discount|voucher|offer|checkout)\b|\bcode\b.*\boff\b"


def say_alnum(m: re.Match[str]) -> str | None:
    """'14C' 'B12' '4B' 'Q3': a letter and a number; codes with several letters and digits
    ('K7Q2XP', '1Z', 'AA1', 'SN-4471-B') spelled out."""
    text = m[0]
    letters = re.findall(r"[A-Za-z]+", text)
    numbers = re.findall(r"\d+", text)
    word = re.fullmatch(r"(?P<w>[A-Z]{4,})(?P<n>\d{1,3})", text)
    if word and re.search(r"[AEIOU]", word["w"]) and re.search(_OFFER_WORDS, m.string, re.I):
        return f"{word['w'].lower()} {v.cardinal(word['n'])}"  # "promo code SAVE20"
    if len(letters) == 1 and len(numbers) == 1 and len(letters[0]) == 1:
        number = numbers[0]
        if len(number) in (3, 4) and previous_word(m).lower().strip(".:#") in _NAMED_NUMBER_BEFORE:
            said = v.in_pairs(number)  # "Apt. 877A"
            return f"{letters[0].upper()} {said}" if text[0].isalpha() else f"{said} {letters[0]}"
        said = v.digits(number) if len(number) > 3 or number.startswith("0") else v.cardinal(number)
        return f"{letters[0].upper()} {said}" if text[0].isalpha() else f"{said} {letters[0]}"
    return spell_code(text)


def _is_code_context(m: re.Match[str]) -> bool:
    words = before(m, 3)
    return any(w.strip(":") in _CODE_WORDS for w in words) and not (
        words and words[-1] in ("is",) and not any(w in _CODE_WORDS - {"is"} for w in words)
    )


def say_digit_groups(m: re.Match[str]) -> str | None:
    """'582 941' after 'code is', '123 4567 89' after 'number is': digit by digit."""
    if not _is_code_context(m) and not re.search(r"[A-Z]{2}\s$", preceding(m)):
        return None
    return ", ".join(v.digits(g) for g in m[0].split())


def say_code_sequence(m: re.Match[str]) -> str | None:
    """'1Z 999 AA1 0123 4567 84' after 'tracking number is': every group spelled."""
    groups = m[0].split()
    if not _is_code_context(m) or sum(any(c.isdigit() for c in g) for g in groups) < 2:
        return None
    if not any(c.isalpha() for c in m[0]):
        return None  # digits only: the digit-groups rule
    return " ".join(spell_code(g) for g in groups)


def say_code_number(m: re.Match[str]) -> str | None:
    """A bare number that is dialled or keyed rather than counted."""
    n = m[0]
    prev = previous_word(m)
    words = before(m, 3)
    # A ZIP code after a state ("CA 94105"), a flight after its airline ("UA 857").
    if re.fullmatch(r"[A-Z]{2}", prev) and (len(n) == 5 or prev not in US_STATES):
        return v.digits(n)
    if n in SERVICE_NUMBERS and (
        sentence_has(m, r"\b(call|dial|text|emergency|hotline|line|police|ambulance)\b")
        or words[-1:] == ["is"]
    ):
        return v.digits(n)
    if len(n) >= 5:  # nobody writes a count of ten thousand or more without commas
        return v.digits(n)
    if n.startswith("0") and len(n) > 1:
        return v.digits(n)
    if len(n) in (3, 4) and prev.lower().strip(".:#") in _NAMED_NUMBER_BEFORE:
        return v.in_pairs(n)  # "Room 1204", "Suite 102", "Apt. 1031"
    if re.fullmatch(r"[1-5]\d\d", n) and re.search(
        r"\b(?:http|status|response|returns?|returned)\b", preceding(m), re.I
    ):
        return v.in_pairs(n)  # "status != 200": an HTTP status
    if len(n) >= 3 and any(w.strip(":,") in _CODE_WORDS - {"is", "number"} for w in words):
        return v.digits(n)
    if len(n) == 4 and words[-2:] in (["number", "is"], ["pin", "is"], ["code", "is"]):
        return v.digits(n)
    if len(n) == 4 and re.search(r"\b(pin|card|ending in|account)\b", " ".join(words)):
        return v.digits(n)
    return None


# ---- money -----------------------------------------------------------------------------


def say_money(m: re.Match[str], british: bool) -> str:
    g = m.groupdict()
    code = g["cur"] or g["code"]
    if code == "¥" and sentence_has(m, r"\b(china|chinese|beijing|shanghai|yuan|rmb)\b"):
        code = "CN¥"
    amount = g["amount"] or g["amount2"]
    written_scale = g.get("scale") or g.get("scale2")
    scale = SCALES.get(written_scale) if written_scale else None
    rate = g.get("rate")
    adjective = after_article(m) and not rate
    said = v.money(code, amount, scale, adjective, british)
    if g["neg"]:
        said = "minus " + said
    if rate:
        said += " " + RATE_WORDS.get(rate, f"per {rate}")
    return said


def say_money_range(m: re.Match[str], british: bool) -> str | None:
    """'$2k–$3k', '€50–100k', '$15-20k', '$2.5–3.1B': the currency (and a shared scale)
    said once, after the second amount, as people say a range of prices."""
    if m["cur2"] and m["cur2"] != m["cur"]:
        return None
    first_scale = SCALES.get(m["sa"]) if m["sa"] else None
    scale = SCALES.get(m["sb"]) if m["sb"] else None
    if (first_scale and not scale) or (not first_scale and "." in m["a"] and not scale):
        return None  # "$4.50–$6.00": each price in full (the money rule)
    first = v.cardinal(m["a"].replace(",", ""), british)
    first += f" {first_scale}" if first_scale and first_scale != scale else ""
    before_noun = (
        re.search(
            r"\b(?:the|a|an|this|that|your|our)\s+$",
            m.string[max(0, m.start() - 12) : m.start()],
            re.I,
        )
        and re.match(r"\s+[a-z]+\b", m.string[m.end() :])
        and not re.match(r"\s+(?:a|an|per|each|for|in|to|of)\b", m.string[m.end() :])
    )
    said = f"{first} to {v.money(m['cur'], m['b'], scale, bool(before_noun), british)}"
    if m["rate"]:
        said += " " + RATE_WORDS.get(m["rate"], f"per {m['rate']}")
    return said


def say_cents(m: re.Match[str]) -> str:
    return f"{v.cardinal(m['n'])} {v.plural(m['n'], 'cent', 'cents')}"


# ---- times and dates -------------------------------------------------------------------


def say_time(m: re.Match[str], british: bool) -> str | None:
    hour, minute = int(m["hour"]), m["minute"] or None
    ampm = m.groupdict().get("ampm")
    if ampm and minute == "00":
        minute = None
    said = v.clock(hour, minute, ampm, british)
    if m.groupdict().get("second"):
        said += f" and {v.cardinal(m['second'])} seconds"
    return said


def say_clock_text(text: str, british: bool) -> str:
    found = re.fullmatch(r"(?P<hour>\d{1,2})(?::(?P<minute>\d\d))?\s?" + AMPM + "?", text.strip())
    if not found:
        return text
    minute = found["minute"]
    if found["ampm"] and minute == "00":
        minute = None
    return v.clock(int(found["hour"]), minute, found["ampm"], british)


def say_time_range(m: re.Match[str], british: bool) -> str:
    return f"{say_clock_text(m['a'], british)} to {say_clock_text(m['b'], british)}"


def say_numeric_date(m: re.Match[str], british: bool) -> str | None:
    a, b = int(m["a"]), int(m["b"])
    month, day = (b, a) if british else (a, b)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    y = m.groupdict().get("y")
    year_number = None
    if y:
        year_number = int(y) if len(y) == 4 else 2000 + int(y) if int(y) < 50 else 1900 + int(y)
    said = v.date(month, day, year_number, british, british)
    return ("the " + said) if british and not re.search(r"\bthe\s+$", preceding(m)) else said


_DATE_BEFORE = {
    "on", "before", "after", "until", "till", "dated", "since", "due", "expires", "renews",
    "from", "to", "through", "thru", "by", "monday,", "tuesday,", "wednesday,", "thursday,",
    "friday,", "saturday,", "sunday,", "runs", "as", "of", "is", "was", "date", "closed",
    "reopens", "resume", "resumes", "starting", "effective", "ends", "starts", "and",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
}  # fmt: skip
_FRACTION_BOTTOMS = {2, 3, 4, 5, 6, 8, 10, 12, 16, 32, 64, 100}


def say_slash(m: re.Match[str], british: bool) -> str | None:
    """'7/4': a date after 'on'/'by'..., a fraction before a measure word or 'of'."""
    a, b = int(m["a"]), int(m["b"])
    text = m[0]
    if text == "24/7":
        return "twenty-four seven"
    if text == "9/11":
        return "nine eleven"
    if a == b and a in (50, 100):
        return f"{v.cardinal(str(a))} {v.cardinal(str(b))}"
    words = before(m, 2)
    prev = words[-1] if words else ""
    nxt = next_word(m).lower()
    if prev.rstrip(":") in ("score", "rated", "rating") or nxt in ("stars", "rating", "points"):
        return f"{v.cardinal(str(a))} out of {v.cardinal(str(b))}"
    if (
        re.search(
            r"\b(?:exp|expires?|expiry|expiration|valid thru|good thru)\W*$",
            preceding(m),
            re.I,
        )
        and 1 <= a <= 12
        and b > 12
    ):
        return (
            f"{v.cardinal(str(a))} {v.cardinal(str(b))}"  # a card's expiry, "eleven twenty-seven"
        )
    if sentence_has(m, r"\b(odds|bookmakers?|bet|betting|favou?rite|longshot)\b"):
        return f"{v.cardinal(str(a))} to {v.cardinal(str(b))}"  # "odds of 5/2"
    if a + b == 100 and nxt.rstrip(".,;:!?") in (
        "split",
        "mix",
        "blend",
        "ratio",
        "allocation",
        "portfolio",
    ):
        return f"{v.cardinal(str(a))} {v.cardinal(str(b))}"  # "a 60/40 split"
    fraction_like = a < b and b in _FRACTION_BOTTOMS
    date_like = 1 <= (b if british else a) <= 12 and 1 <= (a if british else b) <= 31
    follows_date = re.search(r"\d{1,2}/\d{1,2}\s*[–-]\s*$", preceding(m)) is not None
    if date_like and (
        follows_date
        or (prev in _DATE_BEFORE and not (fraction_like and prev in ("by", "is", "of", "and")))
        or (not fraction_like and nxt not in ("of", "cup", "cups"))
        or nxt in ("for", "at")
    ):
        return say_numeric_date(m, british)
    if a < b or b in _FRACTION_BOTTOMS:
        return v.fraction(a, b, british)
    return None


def say_month_year(m: re.Match[str], british: bool) -> str | None:
    month = int(m["a"])
    if not 1 <= month <= 12:
        return None
    return f"{MONTHS[month - 1]} {v.year(int(m['y']), british)}"


# ---- numbers in context ----------------------------------------------------------------


def _is_year_context(m: re.Match[str], n: int) -> bool:
    if not 1000 <= n <= 2199:
        return False
    words = before(m, 3)
    prev = words[-1] if words else ""
    nxt = after(m, 2)
    if nxt and nxt[0].rstrip(".,;:!?") in _YEAR_AFTER:
        return True
    second = re.match(r"\s+(?:and|to|with)\s+\d{4}\s+([a-z]+)", m.string[m.end() : m.end() + 40])
    if second and _COUNTED_NOUN.fullmatch(second[1]):
        return False  # "between 1500 and 1800 people"
    if prev in ("between", "compare", "comparing", "vs", "vs.", "versus") or nxt[:1] in (
        ["vs"],
        ["vs."],
        ["versus"],
    ):
        return True  # "between 1858 and 1996", "compare 1996 with 2003"
    if prev == "with" and re.search(r"\bcompar\w*\s+\d{4}\s+with\s+$", preceding(m)):
        return True
    if prev in ("year", "years") and words[-2:-1] and words[-2] in _YEAR_KINDS:
        return True  # "tax year 2020"
    counted = bool(nxt) and _COUNTED_NOUN.fullmatch(nxt[0]) is not None
    if prev == "of" and words[-2:-1] and words[-2] in _OF_YEAR:
        return not counted
    if prev in _YEAR_JOINS:
        # "from 2009 to 2015", "between 1914 and 1918"; "dates back to 1066".
        earlier = re.search(r"\b(?:from|in|since|between)\s+(\d{4})\s+\w+\s+$", preceding(m), re.I)
        if (earlier or words[-2:-1] in (["back"], ["dates"], ["dated"])) and not counted:
            return True
        if prev in ("to", "and", "through"):
            return False
    if prev == "(" and nxt[:1] == [")"]:
        return True
    if prev in _YEAR_BEFORE or prev.capitalize() in MONTHS:
        # "in 1500 tries": a counted noun after it makes it a count.
        return not (nxt and _COUNTED_NOUN.fullmatch(nxt[0]) and nxt[0] not in ("s",))
    return m.start() == 0 and bool(nxt) and nxt[0] == ","


def say_year_or_number(m: re.Match[str], british: bool) -> str | None:
    n = m["n"]
    if len(n) == 4 and _is_year_context(m, int(n)):
        return v.year(int(n), british)
    return None


def say_bc_ad(m: re.Match[str], british: bool) -> str:
    return f"{v.year(int(m['n']), british)} {' '.join(m['era'].replace('.', '').upper())}"


def say_short_year(m: re.Match[str]) -> str:
    """ "'08" -> "oh eight", "'99" -> "ninety-nine"."""
    return f"oh {v.cardinal(m['n'][1])}" if m["n"][0] == "0" else v.cardinal(m["n"])


def say_era_first(m: re.Match[str], british: bool) -> str:
    """'AD 1454': the era first, then the year."""
    return f"{_spaced(m['era'].replace('.', '').upper())} {v.year(int(m['n']), british)}"


def say_season(m: re.Match[str], british: bool) -> str | None:
    """'1998/99', '2002/03': a season across two years, the second by its last two digits."""
    first = int(m["y"])
    if (first + 1) % 100 != int(m["s"]):
        return None
    second = m["s"]
    said = f"oh {v.cardinal(second[1])}" if second[0] == "0" else v.cardinal(second)
    return f"{v.year(first, british)} {said}"


def say_house_number(m: re.Match[str]) -> str:
    """'1600 Oak Ave.', '190 Cedar St.': a street number is said in pairs."""
    return v.in_pairs(m["n"])


def say_decade(m: re.Match[str]) -> str:
    century, decade = m["century"], int(m["decade"])
    if decade == 0 and century:
        if century == "20":
            return "two thousands"
        return f"{v.cardinal(century)} hundreds"
    tens = {10: "tens"}.get(decade) or v.cardinal(str(decade)).replace("y", "ies")
    return f"{v.cardinal(century)} {tens}" if century else tens


def say_range_start(m: re.Match[str], british: bool) -> str:
    """'10-20' -> 'ten to': the start of a range, then the end by its own rule."""
    a, b = m["a"], m["b"]
    yearish = (
        len(a) == 4
        and len(b) in (2, 4)
        and 1000 <= int(a) <= 2099
        and not re.search(r"\b(pages?|lines?|pp\.|rows?|items?|steps?)\s*$", preceding(m), re.I)
    )
    if yearish:
        return v.year(int(a), british) + " to"
    if "." in a and _is_version_context(m):
        return v.version(a) + " to"
    return v.cardinal(a, british) + " to"


def say_range_end_year(m: re.Match[str], british: bool) -> str | None:
    start = re.search(r"(\d{4})\s?[-–—]\s?$", preceding(m))
    if start and 1000 <= int(start[1]) <= 2099:
        b = m["n"]
        if len(b) == 2:
            b = start[1][:2] + b
        return v.year(int(b), british)
    return None


_VERSIONED = re.compile(r"(?:[A-Z][\w+#.-]*|[a-z]+[A-Z][\w]*|version|release|v|to|or|and|,)$")


def _is_version_context(m: re.Match[str]) -> bool:
    prefix = preceding(m).rstrip()
    word = re.search(r"(\S+)$", prefix)
    if not word:
        return False
    token = word[1]
    if (
        token[0].isupper()
        and token.rstrip(",.") not in MONTHS + DAYS
        and token
        not in (
            "The",
            "A",
            "An",
            "It",
            "In",
            "At",
            "By",
            "About",
        )
    ):
        return True
    if token.lower() in ("version", "release", "v"):
        return True
    # "... 3.11 or 3.12": a version named earlier in the sentence.
    return token.lower().strip(",") in ("to", "or", "and", "than", "not", "from") and bool(
        re.search(r"(?:[A-Z][\w.+#-]*|v)\s?\d+\.\d+", prefix)
    )


def say_version(m: re.Match[str]) -> str | None:
    number = m["v"]
    if m["prefix"]:
        said = "version " + v.version(number)
    elif number.count(".") >= 2 or _is_version_context(m):
        said = v.version(number)
    else:
        return None
    if m["suffix"]:
        suffix = re.sub(r"\brc", "R C ", re.sub(r"[.-]", " ", m["suffix"]).strip())
        said += " " + suffix
        said = re.sub(r"\d+", lambda d: v.cardinal(d[0]), said)
    return said


def say_roman(m: re.Match[str]) -> str | None:
    numeral = m["r"]
    if not v.is_roman(numeral):
        return None
    prev = previous_word(m)
    value = v.roman(numeral)
    if re.match(r"\s\d", m.string[m.end() :]):
        return None  # "DL 88", "CD 4": an airline's or a product's code before its number
    if prev.lower().strip(",") in ROMAN_COUNTED:
        return v.cardinal(str(value))
    if not numeral.isupper():
        return None
    if prev in REGNAL_NAMES:
        return "the " + v.ordinal(value).capitalize()
    if numeral == "I" or (len(numeral) == 1 and numeral in "VXLCDM"):
        return None
    # "Rocky IV", "Final Fantasy VII": a title's number.
    if prev[:1].isupper() and prev.isalpha() and value > 1:
        return v.cardinal(str(value))
    return None


def say_ratio(m: re.Match[str]) -> str | None:
    """'16:9': a ratio, not a time (a time has two-digit minutes)."""
    if len(m["b"]) == 2 and not re.search(r"\b(ratio|aspect|odds)\b", m.string, re.I):
        return None
    return f"{v.cardinal(m['a'])} to {v.cardinal(m['b'])}"


def say_ordinal(m: re.Match[str]) -> str:
    return v.ordinal(int(m["n"].replace(",", "")))


def say_number(m: re.Match[str], british: bool) -> str:
    return v.cardinal(m[0], british)


def say_scaled(m: re.Match[str], british: bool) -> str:
    return f"{v.cardinal(m['n'], british)} {SCALES[m['scale']]}"


# ---- measures --------------------------------------------------------------------------


def _unit_singular(m: re.Match[str]) -> bool:
    """'a 10 kg bag', 'the 1500 mg daily limit', '4" squares', a '40-lb. dog', '16 oz. jars':
    a unit before a noun."""
    following = re.match(r"\s*-?([a-z]+)\b", m.string[m.end() :])
    before_noun = following is not None and following[1] not in _FUNCTION_WORDS
    if after_article(m):
        return True
    counted = re.search(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+$", preceding(m))
    plural_noun = following is not None and re.fullmatch(r"[a-z]+[^su]s", following[1]) is not None
    if before_noun and ("-" in m[0][len(m["n"]) :] or (m["dot"] and plural_noun) or counted):
        # Joined to its number by a hyphen, or an abbreviation's period before a noun.
        return True
    determiner = re.search(r"\b(the|this|that|each|every|per|one)\s+$", preceding(m), re.I)
    return before_noun and (bool(determiner) or m["unit"] in ('"', "″", "in."))


_ELECTRIC = re.compile(
    r"\b(amps?|fuse|circuit|charger|charging|current|battery|breaker|volts?|watts?|power|USB|\d+\s?[VW])\b",
    re.I,
)
_LINE_SPEED = re.compile(
    r"\b(modem|serial|baud|console|link|line|bandwidth|network|upload|download)", re.I
)


def say_bare_bps(m: re.Match[str]) -> str | None:
    """'Fees are quoted in bps': basis points without a number, in a sentence about money."""
    if _LINE_SPEED.search(m.string) or not _FINANCE.search(m.string):
        return None
    return "basis points"


_FINANCE = re.compile(
    r"\b(fees?|rates?|yields?|spreads?|quoted|bonds?|basis|interest|hikes?|cuts?)\b", re.I
)


def say_measure(m: re.Match[str], british: bool) -> str | None:
    if m["unit"] == "A" and (
        previous_word(m).lower().strip(",") in PLACE_WORDS or not _ELECTRIC.search(m.string)
    ):
        return None  # "Seat 31A", "Gate 3A": a place, read as a code
    one, many = UNITS[m["unit"]]
    if m["unit"] == "bps" and _LINE_SPEED.search(m.string):
        one, many = "bit per second", "bits per second"
    value = m["n"]
    big = m["big"]
    fraction = re.fullmatch(r"\d+/\d+|[½⅓⅔¼¾⅛⅜⅝⅞]", value) is not None
    unit = one if _unit_singular(m) or fraction else many if big else v.plural(value, one, many)
    # "took 2 hr. Then": the unit's period also ended the sentence.
    end = "." if m[0].endswith(".") and re.match(r"\s+[A-Z]", m.string[m.end() :]) else ""
    return f"{say_amount(value, british)}{' ' + big if big else ''} {unit}{end}"


def say_amount(value: str, british: bool) -> str:
    mixed = re.fullmatch(r"(\d+)\s?(?:(\d+)/(\d+)|([½⅓⅔¼¾⅛⅜⅝⅞]))", value)
    if mixed:
        top, bottom = (int(mixed[2]), int(mixed[3])) if mixed[2] else UNICODE_FRACTIONS[mixed[4]]
        return v.mixed(mixed[1], top, bottom, british)
    simple = re.fullmatch(r"(\d+)/(\d+)", value)
    if simple:
        return v.fraction(int(simple[1]), int(simple[2]), british)
    if value in UNICODE_FRACTIONS:
        return v.fraction(*UNICODE_FRACTIONS[value], british)
    return v.cardinal(value, british)


def say_feet_inches(m: re.Match[str]) -> str:
    feet, inches = m["ft"], m["inch"]
    said = f"{v.cardinal(feet)} {v.plural(feet, 'foot', 'feet')}"
    if inches:
        said += f" {v.cardinal(inches)} {v.plural(inches, 'inch', 'inches')}"
    return said


def say_temperature(m: re.Match[str], british: bool) -> str:
    scale = {"C": " Celsius", "F": " Fahrenheit", "K": " kelvin", "": ""}[
        (m["scale"] or "").upper()
    ]
    return f"{v.cardinal(m['n'], british)} {v.plural(m['n'], 'degree', 'degrees')}{scale}"


def say_percent(m: re.Match[str], british: bool) -> str:
    return f"{v.cardinal(m['n'], british)} percent"


def say_multiply(m: re.Match[str], british: bool) -> str:
    """'4 × 6 grid', '30 × 20 × 15 cm' are sizes ('by'); '3 × 4 = 12' is a product, and so
    is '2 × 16 oz jars', a count of things measured in something other than length."""
    following = m.string[m.end() : m.end() + 80]
    rest = re.sub(r"^\s*[\d.,]+", "", following)  # what follows the second factor
    unit = re.match(r"\s*-?(" + UNIT + r")(?!\w)", rest)
    by = (
        not re.match(r"\s*\$", following)
        and not (unit and unit[1] not in LENGTH_UNITS)
        and bool(re.match(r"\s*(?:[×x]\s*\d|-?(?:" + UNIT + r")(?!\w)|[a-z]+)", rest))
    )
    return f"{v.cardinal(m['a'] or m['a2'], british)} {'by' if by else 'times'} "


def say_times(m: re.Match[str], british: bool) -> str | None:
    """'10x faster', '1.5×' -> 'times'; '2x + 3' is algebra ('two x')."""
    rest = m.string[m.end() :]
    if m["x"] == "x" and (re.match(r"\s*[-+=<>²³^]", rest) or re.match(r"[²³]", rest)):
        return f"{v.cardinal(m['n'], british)} x"
    return f"{v.cardinal(m['n'], british)} times"


# ---- abbreviations and symbols ---------------------------------------------------------


def say_title(m: re.Match[str]) -> str:
    word = m["title"]
    name = bool(m["name"])
    if word == "Dr":
        return "Doctor" if name else "Drive"
    return "Saint" if name else "Street"


def say_direction(m: re.Match[str]) -> str:
    return {"N": "North", "S": "South", "E": "East", "W": "West"}[m["d"]]


def say_comparison(m: re.Match[str]) -> str:
    said = SYMBOLS[m[0].strip()]
    # The word before, looked for near the sign only: a long run of comparisons stays linear.
    near = re.search(r"([\w.'’#&]+)\W*$", m.string[max(0, m.start() - 40) : m.start()])
    prev = near[1].lower() if near else ""
    if said.startswith("is ") and (
        prev in ("is", "are", "was", "be", "were") or not prev or article_before(m)
    ):
        said = said[3:]
    return f" {said} "


def say_approx(m: re.Match[str]) -> str:
    prev = previous_word(m).lower()
    return " approximately " if prev in ("is", "was", "are", "") else " is approximately "


def say_power(m: re.Match[str]) -> str:
    return " " + say_exponent(m["e"])


def say_camel_hashtag(m: re.Match[str]) -> str:
    return "hashtag " + " ".join(re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|\d+", m["tag"]))


def say_initialism(m: re.Match[str]) -> str:
    return " ".join(m[0].replace(".", ""))


def say_abbreviation(m: re.Match[str]) -> str:
    if m[0].lower() == "est." and re.match(r"\s*(?:in\s)?(?:1\d{3}|20\d\d)\b", m.string[m.end() :]):
        return "established"  # "est. 1921"
    return ABBREVIATIONS[m[0]]


def say_day(m: re.Match[str]) -> str | None:
    if m["day"] == "Sun" and not re.match(r"\s*[,–—-]", m.string[m.end() :]):
        return None  # "the Sun."
    return DAY_ABBR[m["day"]]


# Day abbreviations written without a period. Tue, Thu and Fri are never other words; Mon,
# Wed, Sat and Sun are ("Sat down", "the Sun"), so those are days only beside another day
# ("Mon–Fri", "Sat & Sun", "Mon, Wed, Fri") or before a date ("Fri, Oct 3", "Mon 6/9").
_ONLY_DAYS = {"Tue", "Tues", "Thu", "Thur", "Thurs", "Fri"}
ANY_DAY = "|".join(sorted({*DAY_ABBR, *DAYS}, key=len, reverse=True))
_DAY_BESIDE = re.compile(
    r"\s*(?:[–—/&,-]|\band\b|\bor\b|\bto\b|\bthrough\b)\s*(?:" + ANY_DAY + r")\b"
)
_DAY_BEFORE = re.compile(r"(?:" + ANY_DAY + r")\.?\s*(?:[–—/&,-]|\band|\bor|\bto|\bthrough)\s*$")
_DATE_AFTER = re.compile(r",?\s+(?:(?:" + "|".join(MONTHS + list(MONTH_ABBR)) + r")\b|\d{1,2}/\d)")


def say_bare_day(m: re.Match[str]) -> str | None:
    day = m["day"]
    after, before_text = m.string[m.end() :], preceding(m)
    beside = _DAY_BESIDE.match(after) or _DAY_BEFORE.search(before_text)
    label = re.match(r":\s*(?:\d|closed|open|by appointment)", after, re.I)
    if day in _ONLY_DAYS or beside or label or _DATE_AFTER.match(after):
        return DAY_ABBR[day]
    return None


_SHORT_DAYS = {d[:2]: d for d in DAYS}
_OTHER_DAY = re.compile(r"\b(?:" + ANY_DAY + r"|M[–-]F)\b")


def say_short_day(m: re.Match[str]) -> str | None:
    """'M–F 9–6 and Sa 10–4': a two-letter day beside other days, before its hours."""
    rest = m.string[: m.start()] + m.string[m.end() :]  # whole sentence
    return _SHORT_DAYS[m["d"]] if _OTHER_DAY.search(rest) else None


def say_weekday_span(m: re.Match[str]) -> str:
    """'M–F' (a shop sign's Monday to Friday)."""
    return "Monday to Friday"


def say_day_pair(m: re.Match[str]) -> str:
    """'Tue/Thu': both days ("Tuesday and Thursday"); 'Mon/Wed/Fri': "Monday, Wednesday and
    Friday"."""
    days = [DAY_ABBR.get(d, d) for d in m[0].replace(".", "").split("/")]
    return ", ".join(days[:-1]) + f" and {days[-1]}"


def say_month_day(m: re.Match[str], british: bool) -> str:
    """'May 5, 2026'; 'Oct. 14–16' (October fourteenth to sixteenth)."""
    month = MONTHS.index(MONTH_ABBR.get(m["month"], m["month"])) + 1
    year = int(m["y"]) if m["y"] else None
    if not m["d2"]:
        return v.date(month, int(m["d"]), year, False, british)
    said = f"{v.date(month, int(m['d']), None, False, british)} to {v.ordinal(int(m['d2']))}"
    return said + (f", {v.year(year, british)}" if year else "")


def say_month_range(m: re.Match[str]) -> str:
    """'Jun–Aug', 'Jan.–Mar.': from one month to another."""
    return f"{MONTH_ABBR.get(m['a'], m['a'])} to {MONTH_ABBR.get(m['b'], m['b'])}"


def say_month_abbr(m: re.Match[str]) -> str | None:
    return MONTH_ABBR.get(m["mon"])


def say_ampersand(m: re.Match[str]) -> str:
    """'R&D', 'AT&T', 'Q&A': short sides are said letter by letter ("A T and T")."""
    sides = [" ".join(side) if len(side) <= 3 else side for side in (m["a"], m["b"])]
    return sides[0] + " and " + sides[1]


def _spaced(letters: str) -> str:
    return " ".join(letters)


def say_time_zone(m: re.Match[str]) -> str | None:
    """'6:00pm ET', '9 a.m. PT', '(UTC)': a zone after a time, letter by letter."""
    if not re.search(r"(?:\d|[AaPp]\.?[Mm]\.?|\()\s*$", preceding(m)):
        return None
    return _spaced(m[0])


def say_protocol_version(m: re.Match[str]) -> str:
    """'HTTP/2', 'HTTP/1.1', 'TLS/1.3': the protocol and its version, no slash."""
    return f"{m['p']} {v.version(m['v'])}"


def say_prefixed_year(m: re.Match[str], british: bool) -> str:
    """'FY2025', 'ES2015': a fiscal year or an edition named by its year."""
    return f"{_spaced(m['p'])} {v.year(int(m['y']), british)}"


def say_x_version(m: re.Match[str]) -> str:
    """'Node 22.x', 'Python 3.x': any release of that line."""
    return f"{v.version(m['n'])} point X"


def say_size_range(m: re.Match[str]) -> str | None:
    if m["a"] not in SIZES or m["b"] not in SIZES:
        return None
    return f"{_spaced(m['a'])} to {_spaced(m['b'])}"


def say_state(m: re.Match[str]) -> str | None:
    """'St. Paul, MN 55101': a state's code before its ZIP code is said as its name."""
    return US_STATE_NAMES.get(m["st"])


def say_port(m: re.Match[str]) -> str:
    """'traffic goes to :443': a port on its own."""
    return "port " + v.in_pairs(m["p"])


def say_scheme(m: re.Match[str]) -> str:
    """'starts with https://': the scheme named on its own, spelled."""
    return _spaced(m["s"].upper()) + " colon slash slash"


def say_extension(m: re.Match[str]) -> str | None:
    """'555-0143 x318', 'reach me at x204': a phone extension."""
    before_text = preceding(m)
    if not re.search(r"(?:\d|\b(?:at|dial|call|extension|ext\.?)|,)\s*$", before_text, re.I):
        return None
    return "extension " + v.digits(m["n"])


def say_clock_range_letters(m: re.Match[str], british: bool) -> str:
    """'7a–10a' (a timetable's a.m./p.m. as one letter)."""
    first = v.clock(int(m["h1"]), None, m["x"] + "m", british)
    return f"{first} to {v.clock(int(m['h2']), None, m['y'] + 'm', british)}"


def say_word_range_dash(m: re.Match[str]) -> str:
    """'Mon–Fri' and '28–32°C' are ranges; 'K-12' is kindergarten through twelfth grade;
    the dash of a code ('C-14', 'B-20931') is not read."""
    if re.search(r"\b[A-Z]$", preceding(m)):
        return " through " if re.search(r"\bK$", preceding(m)) else " "
    return " to "


def say_named_time_range(m: re.Match[str]) -> str:
    return f"{m['a']} to "


def say_dash_pause(m: re.Match[str]) -> str:
    return ","


def say_title_any(m: re.Match[str]) -> str:
    if m["title2"]:
        return "Street"
    return say_title(m)


def say_money_after(m: re.Match[str], british: bool) -> str:
    code = "CN¥" if m["code"] == "元" else m["code"]
    adjective = after_article(m)
    said = v.money(code, m["amount2"], None, adjective, british)
    if m.groupdict().get("rate"):
        said += " " + RATE_WORDS.get(m["rate"], f"per {m['rate']}")
    return said


__all__ = ["END", "START", "say_address"]

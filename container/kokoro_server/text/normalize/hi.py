"""Hindi: numbers, prices, percentages, times and dates in Hindi words (hi_numbers.py).

Amounts in the Indian grouping (₹35,00,000 is पैंतीस लाख रुपये), paise after rupees, clock
times as people say them (साढ़े नौ, सवा दो, पौने नौ), years 1100-1999 in hundreds; a range's
dash is से ("9–12 बजे", "सोम–शनि", "₹1–1.5 लाख"), common abbreviations said in full.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize import hi_numbers as n
from kokoro_server.text.normalize.core import Rule, Written, claims, group, rule

MONTHS = (
    "जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्टूबर",
    "नवंबर", "दिसंबर",
)  # fmt: skip
CURRENCIES = {
    "₹": "रुपये", "Rs.": "रुपये", "Rs": "रुपये", "INR": "रुपये", "$": "डॉलर", "USD": "डॉलर",
    "€": "यूरो", "EUR": "यूरो", "£": "पाउंड", "GBP": "पाउंड", "¥": "येन",
}  # fmt: skip
SCALES = {"k": "हज़ार", "K": "हज़ार", "M": "मिलियन", "mn": "मिलियन", "bn": "बिलियन",
          "B": "बिलियन", "L": "लाख", "lakh": "लाख", "Cr": "करोड़", "crore": "करोड़",
          "करोड़": "करोड़", "लाख": "लाख", "हज़ार": "हज़ार"}  # fmt: skip
NUMBER = r"\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# Weekdays as written short in schedules ("सोम–शनि"); said in full in a range.
WEEKDAYS = ("सोम", "मंगल", "बुध", "गुरु", "शुक्र", "शनि", "रवि")
# Abbreviations with a period that are only ever read one way.
ABBREVIATIONS = {
    "डॉ.": "डॉक्टर", "पृ.": "पृष्ठ", "प्रो.": "प्रोफ़ेसर", "कि.मी.": "किलोमीटर",
    "कि.ग्रा.": "किलोग्राम", "ई.पू.": "ईसा पूर्व", "स्व.": "स्वर्गीय",
}  # fmt: skip
# Postpositions that take the place of बजे after a time said in minutes ("… मिनट तक").
_POSTPOSITIONS = ("तक", "से", "के", "की", "का")
_RANGE_DASH = r"\s?[–—]\s?"


def _cardinal(whole: str) -> str:
    """A whole number in words; past the करोड़s (a code, or hostile input) digit by digit."""
    if len(whole) > 12:
        return " ".join(n.UNITS[int(d)] for d in whole)
    return n.cardinal(int(whole or "0"))


def _amount(text: str) -> str:
    whole, _, fraction = text.replace(",", "").partition(".")
    said = _cardinal(whole)
    if fraction:
        said += " दशमलव " + " ".join(n.UNITS[int(d)] for d in fraction)
    return said


def _scaled(amount: str) -> str:
    """An amount before लाख, करोड़...: 1.5 is डेढ़, 2.5 ढाई, 3.5 साढ़े तीन."""
    whole, _, fraction = amount.partition(".")
    if fraction == "5" and whole in ("1", "2"):
        return "डेढ़" if whole == "1" else "ढाई"
    if fraction == "5" and whole:
        return f"साढ़े {_cardinal(whole)}"
    return _amount(amount)


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    scale = m["scale"] or m["scale2"]
    amount = (m["amount"] or m["amount2"]).replace(",", "")
    if scale:
        return f"{_scaled(amount)} {SCALES[scale]} {CURRENCIES[code]}"
    return _price(amount, CURRENCIES[code])


def _price(amount: str, currency: str) -> str:
    """'99.50', 'रुपये' -> 'निन्यानवे रुपये पचास पैसे'."""
    whole, _, paise = amount.partition(".")
    said = f"{_cardinal(whole)} {currency}"
    if _has_paise(amount, currency):
        said += f" {n.cardinal(int(paise))} पैसे"
    return said


def _has_paise(amount: str, currency: str) -> bool:
    paise = amount.partition(".")[2]
    return len(paise) == 2 and int(paise) > 0 and currency == "रुपये"


def _money_range(m: re.Match[str]) -> str:
    """'₹15,000–20,000' -> 'पंद्रह हज़ार से बीस हज़ार रुपये'; '₹1–1.5 लाख' -> 'एक से डेढ़ लाख
    रुपये': the currency once, after the range."""
    low, high = (m[end].replace(",", "") for end in ("low", "high"))
    currency = CURRENCIES[m["cur"]]
    if m["scale"]:
        return f"{_scaled(low)} से {_scaled(high)} {SCALES[m['scale']]} {currency}"
    if _has_paise(low, currency) or _has_paise(high, currency):
        return f"{_price(low, currency)} से {_price(high, currency)}"
    return f"{_amount(low)} से {_amount(high)} {currency}"


def _date(m: re.Match[str]) -> str | None:
    day, month = int(m["d"]), int(m["m"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    said = f"{n.cardinal(day)} {MONTHS[month - 1]}"
    return f"{said} {n.year(int(m['y']))}" if m["y"] else said


def _time(m: re.Match[str]) -> str:
    """'9:30 बजे' -> 'साढ़े नौ बजे', but '10:10 बजे' -> 'दस बजकर दस मिनट पर': बजे follows
    only a whole or quarter hour; after minutes it is पर, or the postposition that follows.
    AM and PM after a time are said as letters ('ए एम')."""
    hour, minute = int(m["h"]), int(m["min"] or 0)
    said = n.clock(hour, minute) if m["min"] else n.cardinal(hour)
    if m["ampm"]:
        said += " ए एम" if m["ampm"][0] in "Aa" else " पी एम"
    if m["baje"]:
        in_minutes = minute not in (0, 15, 30, 45)
        following = m.string[m.end() :].lstrip()
        if not in_minutes:
            said += " बजे"
        elif not following.startswith(_POSTPOSITIONS):
            said += " पर"
    return said


def _hour_ampm(m: re.Match[str]) -> str:
    return n.cardinal(int(m["h2"])) + (" ए एम" if m["ampm2"][0] in "Aa" else " पी एम")


def _weekdays(m: re.Match[str]) -> str:
    return f"{m['first']}वार से {m['last']}वार"


def _number(m: re.Match[str]) -> str:
    text = m[0]
    following = m.string[m.end() :].lstrip()
    preceding = m.string[: m.start()].rstrip()
    after_month = preceding.endswith(MONTHS)
    if len(text) == 4 and (after_month or following.startswith(("में", "तक", "से", "के", "की", "का"))):
        return n.year(int(text))
    if following.startswith(("हज़ार", "लाख", "करोड़")):  # "1.5 लाख" is डेढ़ लाख
        return _scaled(text.replace(",", ""))
    return _amount(text)


_SYMBOLS = "|".join(
    re.escape(k) for k in sorted(CURRENCIES, key=len, reverse=True) if not k.isalpha()
)
_CODES = "|".join(k for k in CURRENCIES if k.isalpha())
_SCALE = r"(?:\s?(?P<scale>" + "|".join(SCALES) + r")(?=[\s।,.!?]|$))?"
_WEEKDAY = "|".join(WEEKDAYS)
_MONTH = "|".join(MONTHS)

RULES: tuple[Rule, ...] = (
    # Day first: "10/03/2025", "10/03"; with a hyphen or a dot only with the year, since
    # "9-12" is a range.
    rule(
        "date",
        r"(?P<d>\d{1,2})(?P<sep>[/.-])(?P<m>\d{1,2})(?:(?P=sep)(?P<y>\d{4}))?",
        lambda m: _date(m) if m["sep"] == "/" or m["y"] else None,
    ),
    rule(
        "time",
        r"(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)(?:\s?(?P<ampm>[AaPp]\.?[Mm]\.?))?(?P<baje>\s+बजे)?"
        r"|(?P<h2>1[0-2]|0?[1-9])\s?(?P<ampm2>[AaPp]\.?[Mm]\.?)",
        lambda m: _time(m) if m["h"] else _hour_ampm(m),
    ),
    rule(
        "money-range",
        r"(?P<cur>"
        + _SYMBOLS
        + r")\s?(?P<low>"
        + NUMBER
        + r")"
        + _RANGE_DASH
        + r"(?:(?P=cur)\s?)?(?P<high>"
        + NUMBER
        + r")"
        + _SCALE,
        _money_range,
    ),
    rule(
        "money",
        r"(?P<cur>"
        + _SYMBOLS
        + r")\s?(?P<amount>"
        + NUMBER
        + r")"
        + _SCALE
        + r"|(?P<amount2>"
        + NUMBER
        + r")"
        + _SCALE.replace("<scale>", "<scale2>")
        + r"\s?(?P<code>"
        + _CODES
        + r")\b",
        _money,
    ),
    rule(
        "percent-range",
        r"(?P<low>" + NUMBER + r")\s?%?" + _RANGE_DASH + r"(?P<high>" + NUMBER + r")\s?%",
        lambda m: f"{_amount(m['low'])} से {_amount(m['high'])} प्रतिशत",
    ),
    rule("percent", r"(?P<n>" + NUMBER + r")\s?%", lambda m: f"{_amount(m['n'])} प्रतिशत"),
    rule(
        "basis-points", r"(?P<n>" + NUMBER + r")\s?bps?", lambda m: f"{_amount(m['n'])} बेसिस पॉइंट"
    ),
    rule(
        "weekday-range",
        r"(?P<first>" + _WEEKDAY + r")(?:वार)?\s?[–—-]\s?(?P<last>" + _WEEKDAY + r")(?:वार)?",
        _weekdays,
    ),
    rule(
        "abbreviation",
        "|".join(re.escape(k) for k in sorted(ABBREVIATIONS, key=len, reverse=True)),
        lambda m: ABBREVIATIONS[m[0]],
    ),
    rule(
        "ordinal",
        r"(?P<n>\d{1,12})(?P<s>वाँ|वां|वीं|वें|ला|रा|था|ठा|ली|री|थी|ठी)",
        lambda m: n.ordinal(int(m["n"]), m["s"]),
    ),
    rule("number", NUMBER, _number),
    # The dash between two numbers or after a month ("9–12", "25 दिसंबर–1 जनवरी", "मई–जून")
    # is से.
    rule(
        "range",
        r"(?<=\d)"
        + _RANGE_DASH
        + r"(?=\d)|(?<!\w)(?P<month>"
        + _MONTH
        + r")"
        + _RANGE_DASH
        + r"(?=\d|"
        + _MONTH
        + r")",
        lambda m: f"{m['month']} से" if m["month"] else "से",
        bounded=False,
    ),
)


def normalize(text: str) -> list[Written]:
    return group(text, claims(text, RULES))

"""Hindi: numbers, prices, percentages, times and dates in Hindi words (hi_numbers.py).

Amounts in the Indian grouping (₹35,00,000 is पैंतीस लाख रुपये), paise after rupees, clock
times as people say them (साढ़े नौ, सवा दो, पौने नौ), years 1100-1999 in hundreds.
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


def _amount(text: str) -> str:
    whole, _, fraction = text.replace(",", "").partition(".")
    said = n.cardinal(int(whole or "0"))
    if fraction:
        said += " दशमलव " + " ".join(n.UNITS[int(d)] for d in fraction)
    return said


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    scale = m["scale"] or m["scale2"]
    amount = (m["amount"] or m["amount2"]).replace(",", "")
    if scale:
        said = "ढाई" if amount == "2.5" else "डेढ़" if amount == "1.5" else _amount(amount)
        return f"{said} {SCALES[scale]} {CURRENCIES[code]}"
    whole, _, paise = amount.partition(".")
    said = f"{n.cardinal(int(whole or '0'))} {CURRENCIES[code]}"
    if paise and len(paise) == 2 and int(paise) and CURRENCIES[code] == "रुपये":
        said += f" {n.cardinal(int(paise))} पैसे"
    return said


def _date(m: re.Match[str]) -> str | None:
    day, month = int(m["d"]), int(m["m"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    said = f"{n.cardinal(day)} {MONTHS[month - 1]}"
    return f"{said} {n.year(int(m['y']))}" if m["y"] else said


def _time(m: re.Match[str]) -> str:
    return n.clock(int(m["h"]), int(m["min"]))


def _number(m: re.Match[str]) -> str:
    text = m[0]
    following = m.string[m.end() :].lstrip()
    preceding = m.string[: m.start()].rstrip()
    after_month = preceding.endswith(MONTHS)
    if len(text) == 4 and (after_month or following.startswith(("में", "तक", "से", "के", "की", "का"))):
        return n.year(int(text))
    return _amount(text)


_SYMBOLS = "|".join(
    re.escape(k) for k in sorted(CURRENCIES, key=len, reverse=True) if not k.isalpha()
)
_CODES = "|".join(k for k in CURRENCIES if k.isalpha())
_SCALE = r"(?:\s?(?P<scale>" + "|".join(SCALES) + r")(?=[\s।,.!?]|$))?"

RULES: tuple[Rule, ...] = (
    rule("date", r"(?P<d>\d{1,2})/(?P<m>\d{1,2})(?:/(?P<y>\d{4}))?", _date),
    rule("time", r"(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)", _time),
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
    rule("percent", r"(?P<n>" + NUMBER + r")\s?%", lambda m: f"{_amount(m['n'])} प्रतिशत"),
    rule(
        "ordinal",
        r"(?P<n>\d+)(?P<s>वाँ|वां|वीं|वें|ला|रा|था|ठा|ली|री|थी|ठी)",
        lambda m: n.ordinal(int(m["n"]), m["s"]),
    ),
    rule("number", NUMBER, _number),
)


def normalize(text: str) -> list[Written]:
    return group(text, claims(text, RULES))

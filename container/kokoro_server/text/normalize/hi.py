"""Hindi: prices, percentages, times and dates in Hindi words around the digits.

num2words has no Hindi; espeak-ng's Hindi voice reads digits as Hindi numbers itself
("500" -> "पाँच सौ"), so the digits stay and what is said around them is added: the
currency after the amount, "प्रतिशत", "बजकर ... मिनट", the month's name.
"""

from __future__ import annotations

import re

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
          "B": "बिलियन", "L": "लाख", "lakh": "लाख", "Cr": "करोड़", "crore": "करोड़"}  # fmt: skip
NUMBER = r"\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?"


def _amount(text: str) -> str:
    whole, _, fraction = text.replace(",", "").partition(".")
    return f"{whole} दशमलव {' '.join(fraction)}" if fraction else whole


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    scale = m["scale"] or m["scale2"]
    amount = m["amount"] or m["amount2"]
    said = _amount(amount)
    if scale:
        said += " " + SCALES[scale]
    return f"{said} {CURRENCIES[code]}"


def _date(m: re.Match[str]) -> str | None:
    day, month = int(m["d"]), int(m["m"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    said = f"{day} {MONTHS[month - 1]}"
    return f"{said} {m['y']}" if m["y"] else said


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["min"])
    return f"{hour} बजे" if minute == 0 else f"{hour} बजकर {minute} मिनट"


_SYMBOLS = "|".join(
    re.escape(k) for k in sorted(CURRENCIES, key=len, reverse=True) if not k.isalpha()
)
_CODES = "|".join(k for k in CURRENCIES if k.isalpha())
_SCALE = r"(?:\s?(?P<scale>" + "|".join(SCALES) + r")\b)?"

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
    rule("number", NUMBER, lambda m: _amount(m[0])),
)


def normalize(text: str) -> list[Written]:
    return group(text, claims(text, RULES))

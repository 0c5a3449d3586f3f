"""Japanese: prices, percentages, times and dates rewritten for the Japanese G2P.

"$5" -> "5ドル", "¥300" -> "300円", "10:30" -> "10時30分", "2024/12/25" -> "2024年12月25日".
The digits stay: the G2P reads them in Japanese (see cjk.py).
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.cjk import NUMBER, amount, currency_pattern
from kokoro_server.text.normalize.core import Claim, Rule, Say, Written, claims, group

CURRENCIES = {
    "$": "ドル", "US$": "ドル", "USD": "ドル", "¥": "円", "￥": "円", "JPY": "円", "€": "ユーロ",
    "EUR": "ユーロ", "£": "ポンド", "GBP": "ポンド", "₹": "ルピー", "元": "元", "R$": "レアル",
    "₩": "ウォン",
}  # fmt: skip


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    return (
        amount(m["amount"] or m["amount2"], m["scale"] or m["scale2"], "万", "億")
        + CURRENCIES[code]
    )


def _date(m: re.Match[str]) -> str | None:
    y, mo, d = m["y"], int(m["m"]), int(m["d"])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return (f"{int(y)}年" if y else "") + f"{mo}月{d}日"


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["min"])
    return f"{hour}時" + ("半" if minute == 30 else f"{minute}分" if minute else "")


def _r(name: str, pattern: str, say: Say) -> Rule:
    return Rule(name, re.compile(pattern), say)


# No word boundaries in Japanese: the rules are not bounded by spaces.
RULES: tuple[Rule, ...] = (
    _r("iso-date", r"(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})", _date),
    _r("date", r"(?<![\d/])(?P<y>)(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])", _date),
    _r("time", r"(?<!\d)(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)(?!\d)", _time),
    _r("money", currency_pattern(CURRENCIES), _money),
    _r("percent", r"(?P<n>" + NUMBER + r")\s?[%％]", lambda m: f"{m['n']}パーセント"),
)


def rewrites(text: str) -> list[Claim]:
    return claims(text, RULES)


def normalize(text: str) -> list[Written]:
    return group(text, rewrites(text))

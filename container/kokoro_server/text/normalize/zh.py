"""Mandarin: prices, times and dates rewritten for the Mandarin G2P.

"$5" -> "5美元", "¥300" -> "300元", "10:30" -> "10点30分", "2024/12/25" -> "2024年12月25日",
"周一–周五" -> "周一到周五", "3–5%" -> "百分之3到5". The digits stay: the G2P turns them
into Chinese numerals with cn2an, which also reads percentages ("50%" -> 百分之五十) and
years digit by digit (see cjk.py).
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize import cjk
from kokoro_server.text.normalize.core import Claim, Rule, Written, claims, group

CURRENCIES = {
    "$": "美元", "US$": "美元", "USD": "美元", "¥": "元", "￥": "元", "CNY": "元", "RMB": "元",
    "€": "欧元", "EUR": "欧元", "£": "英镑", "GBP": "英镑", "₹": "卢比", "JPY": "日元",
    "HK$": "港元", "₩": "韩元",
}  # fmt: skip


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    return (
        cjk.amount(m["amount"] or m["amount2"], m["scale"] or m["scale2"], "万", "亿")
        + CURRENCIES[code]
    )


def _money_range(m: re.Match[str]) -> str:
    """'¥5000–8000' -> '5000到8000元': the currency is said once, after the range."""
    low, high = (cjk.amount(m[end], m["scale"], "万", "亿") for end in ("low", "high"))
    return f"{low}到{high}{CURRENCIES[m['cur']]}"


def _percent_range(m: re.Match[str]) -> str:
    """'3–5%' -> '百分之3到5'; '3%–5%' -> '百分之3到百分之5' (both ends as written)."""
    high = f"百分之{m['high']}" if m["pct"] else m["high"]
    return f"百分之{m['low']}到{high}"


def _date(m: re.Match[str]) -> str | None:
    y, mo, d = m["y"], int(m["m"]), int(m["d"])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return (f"{y}年" if y else "") + f"{mo}月{d}日"


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["min"])
    if minute == 0:
        return f"{hour}点"
    if minute == 30:
        return f"{hour}点半"
    return f"{hour}点" + (f"零{minute}" if minute < 10 else f"{minute}") + "分"


_r = cjk.unbounded_rule


_YAO = str.maketrans("0123456789", "零幺二三四五六七八九")
_DIGITS = str.maketrans("0123456789", "零一二三四五六七八九")
# Measure words after which 2 is 两 ("2个" -> 两个, "2点" -> 两点).
_MEASURE = "个点位次只条件张本台辆双对天周年岁杯碗瓶"

# What a range's dash joins: numbers, times, dates ("24日～1月2日") and weekdays ("周一–周五").
_RANGE_END = r"(?:(?<=\d)|(?<=[日号点月])|(?<=周[一二三四五六日])|(?<=星期[一二三四五六日天]))"
_RANGE_START = r"(?=\d|周[一二三四五六日]|星期[一二三四五六日天])"

RULES: tuple[Rule, ...] = (
    # Numbers dialled or on a door are read digit by digit, 1 as 幺 ("打110", "101室").
    _r("dialled", r"(?<=[打拨])\d{3,5}|\d{3,4}(?=[室号房])", lambda m: m[0].translate(_YAO)),
    _r("phone", r"(?<!\d)1\d{10}(?!\d)|(?<!\d)\d{7,8}(?!\d)", lambda m: m[0].translate(_DIGITS)),
    _r("two", r"(?<![\d.])2(?=[" + _MEASURE + "])", lambda m: "两"),
    *cjk.date_time_money_rules(CURRENCIES, _date, _time, _money_range, _money),
    _r(
        "percent-range",
        cjk.NUMBER_START
        + r"(?P<low>"
        + cjk.NUMBER
        + r")(?P<pct>[%％])?"
        + cjk.RANGE_DASH
        + r"(?P<high>"
        + cjk.NUMBER
        + r")[%％]",
        _percent_range,
    ),
    # Basis points: "25bp" -> 25个基点 (reached when the stretch is not read as English).
    _r("basis-points", r"(?<![\d.])(?P<n>\d+)\s?bps?(?![A-Za-z])", lambda m: f"{m['n']}个基点"),
    _r("range", _RANGE_END + cjk.RANGE_DASH + _RANGE_START, lambda m: "到"),
)


def rewrites(text: str) -> list[Claim]:
    return claims(text, RULES)


def normalize(text: str) -> list[Written]:
    return group(text, rewrites(text))

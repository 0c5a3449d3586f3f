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


# Counters whose reading the G2P gets wrong from digits (9時 is くじ, not きゅうじ; 10分 is
# じゅっぷん; 20日 is はつか): written in kana, the others left to the G2P.
_HOURS = {4: "よじ", 7: "しちじ", 9: "くじ", 14: "じゅうよじ", 16: "じゅうろくじ",
          17: "じゅうしちじ", 19: "じゅうくじ", 21: "にじゅういちじ"}  # fmt: skip
_MONTHS = {4: "しがつ", 7: "しちがつ", 9: "くがつ"}
_DAYS = {1: "ついたち", 2: "ふつか", 3: "みっか", 4: "よっか", 5: "いつか", 6: "むいか",
         7: "なのか", 8: "ようか", 9: "ここのか", 10: "とおか", 14: "じゅうよっか", 20: "はつか",
         24: "にじゅうよっか"}  # fmt: skip
_PEOPLE = {1: "ひとり", 2: "ふたり", 4: "よにん"}
_TENS = {1: "じゅう", 2: "にじゅう", 3: "さんじゅう", 4: "よんじゅう", 5: "ごじゅう"}
_MINUTES = {1: "いっぷん", 2: "にふん", 3: "さんぷん", 4: "よんぷん", 5: "ごふん", 6: "ろっぷん",
            7: "ななふん", 8: "はっぷん", 9: "きゅうふん"}  # fmt: skip


def _minutes(number: int) -> str:
    tens, ones = divmod(number, 10)
    if ones == 0:
        return _TENS[tens][:-1] + "っぷん" if tens > 1 else "じゅっぷん"
    return (_TENS[tens] if tens else "") + _MINUTES[ones]


def counters(text: str) -> str:
    """'9時15分' -> 'くじじゅうごふん'; '20日' -> 'はつか'; other counts stay digits."""

    def say(m: re.Match[str]) -> str:
        number, counter = int(m[1]), m[2]
        table = {"時": _HOURS, "月": _MONTHS, "日": _DAYS, "人": _PEOPLE}.get(counter)
        if counter == "分" and 0 < number < 60:
            return _minutes(number)
        return table.get(number, m[0]) if table else m[0]

    return re.sub(r"(?<![\d.,])(\d+)(時|分|月|日|人)", say, text)


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
    return counters((f"{int(y)}年" if y else "") + f"{mo}月{d}日")


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["min"])
    return counters(f"{hour}時" + ("半" if minute == 30 else f"{minute}分" if minute else ""))


def _r(name: str, pattern: str, say: Say) -> Rule:
    return Rule(name, re.compile(pattern), say)


# No word boundaries in Japanese: the rules are not bounded by spaces.
RULES: tuple[Rule, ...] = (
    _r("iso-date", r"(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})", _date),
    _r("date", r"(?<![\d/])(?P<y>)(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])", _date),
    _r("time", r"(?<!\d)(?P<h>[01]?\d|2[0-3]):(?P<min>[0-5]\d)(?!\d)", _time),
    _r("money", currency_pattern(CURRENCIES), _money),
    _r("percent", r"(?P<n>" + NUMBER + r")\s?[%％]", lambda m: f"{m['n']}パーセント"),
    _r("counter", r"(?<![\d.,])\d+(?:時|分|月|日|人)(?:\d+(?:分|日))?", lambda m: counters(m[0])),
)


def rewrites(text: str) -> list[Claim]:
    return claims(text, RULES)


def normalize(text: str) -> list[Written]:
    return group(text, rewrites(text))

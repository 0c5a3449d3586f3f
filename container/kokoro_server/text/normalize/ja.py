"""Japanese: prices, percentages, times and dates rewritten for the Japanese G2P.

"$5" -> "5ドル", "¥300" -> "300円", "10:30" -> "10時半", "2024/12/25" -> "2024年12月25日",
"月～金" -> "月曜から金曜". Most digits stay: the G2P reads them in Japanese (see cjk.py);
where it reads a count wrong from digits, the count is written in kana or kanji numerals.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize import cjk
from kokoro_server.text.normalize.core import Claim, Rule, Written, claims, group

CURRENCIES = {
    "$": "ドル", "US$": "ドル", "USD": "ドル", "¥": "円", "￥": "円", "JPY": "円", "€": "ユーロ",
    "EUR": "ユーロ", "£": "ポンド", "GBP": "ポンド", "₹": "ルピー", "元": "元", "R$": "レアル",
    "₩": "ウォン",
}  # fmt: skip


# Counters whose reading the G2P gets wrong from digits (9時 is くじ, not きゅうじ; 10分 is
# じゅっぷん; 20日 is はつか): written in kana, the others left to the G2P. Months are all
# in kana: before a day written in kana the G2P reads "3月" as さんつき.
_HOURS = {4: "よじ", 7: "しちじ", 9: "くじ", 14: "じゅうよじ", 16: "じゅうろくじ",
          17: "じゅうしちじ", 19: "じゅうくじ", 21: "にじゅういちじ"}  # fmt: skip
_MONTHS = {1: "いちがつ", 2: "にがつ", 3: "さんがつ", 4: "しがつ", 5: "ごがつ", 6: "ろくがつ",
           7: "しちがつ", 8: "はちがつ", 9: "くがつ", 10: "じゅうがつ", 11: "じゅういちがつ",
           12: "じゅうにがつ"}  # fmt: skip
_DAYS = {1: "ついたち", 2: "ふつか", 3: "みっか", 4: "よっか", 5: "いつか", 6: "むいか",
         7: "なのか", 8: "ようか", 9: "ここのか", 10: "とおか", 14: "じゅうよっか", 20: "はつか",
         24: "にじゅうよっか"}  # fmt: skip
_TENS = {1: "じゅう", 2: "にじゅう", 3: "さんじゅう", 4: "よんじゅう", 5: "ごじゅう",
         6: "ろくじゅう", 7: "ななじゅう", 8: "はちじゅう", 9: "きゅうじゅう"}  # fmt: skip
_MINUTES = {1: "いっぷん", 2: "にふん", 3: "さんぷん", 4: "よんぷん", 5: "ごふん", 6: "ろっぷん",
            7: "ななふん", 8: "はっぷん", 9: "きゅうふん"}  # fmt: skip
# Digits read one by one after a decimal point ("3.14" is さんてんいちよん).
_DIGIT_KANA = ("ぜろ", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう")
_KANJI_DIGITS = "〇一二三四五六七八九"


def _minutes(number: int) -> str:
    tens, ones = divmod(number, 10)
    if ones == 0:
        return _TENS[tens][:-1] + "っぷん" if tens > 1 else "じゅっぷん"
    return (_TENS[tens] if tens else "") + _MINUTES[ones]


def _kanji(number: int) -> str:
    """1-9999 in kanji numerals: 12 -> 十二, 350 -> 三百五十, 1000 -> 千."""
    said = ""
    for value, name in ((1000, "千"), (100, "百"), (10, "十")):
        head, number = divmod(number, value)
        if head:
            said += ("" if head == 1 else _KANJI_DIGITS[head]) + name
    return said + (_KANJI_DIGITS[number] if number else "")


def _people(number: int) -> str:
    """The G2P reads "3人" as さんじん and "5人" as ごひと; from kanji numerals (三人, 五人,
    一人 ひとり) it picks the counter's reading. Big counts keep 万 units ("100万人")."""
    return (_kanji(number) if 0 < number < 10**4 else man_units(number)) + "人"


def man_units(number: int) -> str:
    """12000 -> '1万2000', 1000000 -> '100万': Japanese counts in 万 and 億, and the G2P,
    reading a long run of digits, loses the word after it (1000000円 is read ...まんまる)."""
    said = ""
    for value, name in ((10**8, "億"), (10**4, "万")):
        head, number = divmod(number, value)
        if head:
            said += f"{head}{name}"
    return said + (str(number) if number else "")


def counters(text: str) -> str:
    """'9時15分' -> 'くじじゅうごふん'; '20日' -> 'はつか'; '3人' -> '三人'; other counts stay
    digits."""

    def say(m: re.Match[str]) -> str:
        if len(m[1]) > 12:  # no count: a run of digits left to the G2P
            return m[0]
        number, counter = int(m[1]), m[2]
        if counter == "人":
            return _people(number)
        table = {"時": _HOURS, "月": _MONTHS, "日": _DAYS}.get(counter)
        if counter == "分" and 0 < number < 60:
            return _minutes(number)
        return table.get(number, m[0]) if table else m[0]

    return re.sub(r"(?<![\d.,])(\d+)(時|分|月|日|人)", say, text)


def number(text: str) -> str:
    """A written amount as the G2P should read it: '3.14' -> '3点いちよん' (the G2P reads
    the digits after a point as one number), '1,000,000' -> '100万', '350' -> '350'."""
    whole, _, fraction = text.replace(",", "").partition(".")
    if fraction:
        return f"{whole}点" + "".join(_DIGIT_KANA[int(d)] for d in fraction)
    # Not a code with leading zeros, nor more digits than 万 and 億 can say.
    if 4 < len(whole) <= 12 and not whole.startswith("0"):
        return man_units(int(whole))
    return whole


def _percent(m: re.Match[str]) -> str:
    """Tens before パーセント end in a glottal stop: 20% is にじゅっパーセント, 150% is
    ひゃくごじゅっパーセント."""
    text = m["n"].replace(",", "")
    if "." not in text and len(text) <= 12 and int(text) % 10 == 0 and int(text) % 100:
        value = int(text)
        hundreds = value - value % 100
        return (str(hundreds) if hundreds else "") + _TENS[value % 100 // 10][:-1] + "っパーセント"
    return number(text) + "パーセント"


def _money(m: re.Match[str]) -> str:
    code = m["cur"] or m["code"]
    return _amount(m["amount"] or m["amount2"], m["scale"] or m["scale2"]) + CURRENCIES[code]


def _money_range(m: re.Match[str]) -> str:
    """'¥5000–8000' -> '5000から8000円': the currency is said once, after the range."""
    low, high = (_amount(m[end], m["scale"]) for end in ("low", "high"))
    return f"{low}から{high}{CURRENCIES[m['cur']]}"


def _amount(text: str, scale: str | None) -> str:
    said = cjk.amount(text, scale, "万", "億")
    return said if said.endswith(("万", "億")) else number(said)


def _date(m: re.Match[str]) -> str | None:
    y, mo, d = m["y"], int(m["m"]), int(m["d"])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return counters((f"{int(y)}年" if y else "") + f"{mo}月{d}日")


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["min"])
    return counters(f"{hour}時" + ("半" if minute == 30 else f"{minute}分" if minute else ""))


def _weekdays(m: re.Match[str]) -> str:
    """'月～金' -> '月曜から金曜': a lone weekday kanji is read as the weekday only with 曜."""
    day = "日" if (m["last_suffix"] or "").endswith("日") else ""
    return f"{m['first']}曜{day}から{m['last'] or m['bare']}曜{day}"


_r = cjk.unbounded_rule


_WEEKDAY = "[月火水木金土日]"
_KANJI = r"\u3400-\u9fff"

# No word boundaries in Japanese: the rules are not bounded by spaces.
RULES: tuple[Rule, ...] = (
    *cjk.date_time_money_rules(CURRENCIES, _date, _time, _money_range, _money),
    _r(
        "percent",
        cjk.NUMBER_START + r"(?P<n>" + cjk.NUMBER + r")\s?(?:[%％]|パーセント)",
        _percent,
    ),
    _r("counter", r"(?<![\d.,])\d+(?:時|分|月|日|人)(?:\d+(?:分|日))?", lambda m: counters(m[0])),
    _r(
        "number",
        cjk.NUMBER_START + r"(?:" + cjk.NUMBER + r")(?![\d.,])",
        lambda m: number(m[0]),
    ),
    # "月～金", "月曜～金曜日": weekdays joined by a range, not part of a longer word.
    _r(
        "weekday-range",
        rf"(?:(?<![\d{_KANJI}])|(?<=週))(?P<first>{_WEEKDAY})(?:曜日?)?{cjk.RANGE_DASH}"
        rf"(?:(?P<last>{_WEEKDAY})(?P<last_suffix>曜日?)|(?P<bare>{_WEEKDAY})(?![{_KANJI}]))",
        _weekdays,
    ),
    # "3月14日（金）": the weekday in brackets after a date is read with 曜日.
    _r("weekday", rf"(?<=[日\d])[（(](?P<d>{_WEEKDAY})[）)]", lambda m: f"{m['d']}曜日"),
    # A range's dash is から ("10–18時", "24日～1月2日"): the G2P reads only a wave dash
    # right before a digit so, and the day before it may now be kana.
    _r(
        "range",
        r"(?:(?<=\d)|(?<=[日時月分円万億%％]))" + cjk.RANGE_DASH + r"(?=\d)",
        lambda m: "から",
    ),
)


def rewrites(text: str) -> list[Claim]:
    return claims(text, RULES)


def normalize(text: str) -> list[Written]:
    return group(text, rewrites(text))

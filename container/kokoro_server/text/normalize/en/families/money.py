"""English rules: prices, price ranges, rates ("$20/hr") and cents."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import RATE_WORDS


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    money_pattern = (
        r"(?P<neg>[-−])?(?P<cur>" + say.CURRENCY_SYMBOLS + r")\s?(?P<amount>" + say.NUMBER + r")"
        r"(?:\s?" + say.SCALE + r")?"
        r"|(?P<code>"
        + say.CURRENCY_CODES
        + r")\s?(?P<amount2>"
        + say.NUMBER
        + r")(?:\s?"
        + say.SCALE.replace("<scale>", "<scale2>")
        + ")?"
    )
    money_after = r"(?P<amount2>" + say.NUMBER + r")\s?(?P<code>" + say.CURRENCY_CODES + r"|元)"
    rate = r"(?:/(?P<rate>" + say.alternatives(RATE_WORDS) + r")(?:\.(?=\s+[a-z]))?)?"
    return (
        rule(
            "money-range",
            r"(?P<cur>" + say.CURRENCY_SYMBOLS + r")\s?(?P<a>" + say.NUMBER + r")"
            r"(?:\s?" + say.SCALE.replace("<scale>", "<sa>") + r")?\s?[–-]\s?"
            r"(?P<cur2>" + say.CURRENCY_SYMBOLS + r")?\s?(?P<b>" + say.NUMBER + r")"
            r"(?:\s?" + say.SCALE.replace("<scale>", "<sb>") + r")?" + rate,
            b(say.say_money_range),
        ),
        rule("money", "(?:" + money_pattern + ")" + rate, b(say.say_money)),
        rule("money-after", money_after + rate, b(say.say_money_after)),
        rule("cents", r"(?P<n>\d+)\s?¢", say.say_cents),
    )

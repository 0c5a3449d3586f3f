"""English rules: numbers, ordinals, fractions, ratios, Roman numerals and numeric ranges."""

from __future__ import annotations

from kokoro_server.text.normalize.core import START, Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en import verbalize as v
from kokoro_server.text.normalize.en.tables import (
    BEFORE_NUMBER,
    DAY_ABBR,
    DAYS,
    MONTH_ABBR,
    MONTHS,
    UNICODE_FRACTIONS,
)


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    return (
        rule("ratio", r"(?P<a>\d+):(?P<b>\d+)", say.say_ratio),
        rule("roman", r"(?P<r>[IVXLCDM]+|[ivxlc]+)(?='s)?", say.say_roman),
        rule(
            "range",
            START + r"(?<!/)(?P<a>\d+(?:\.\d+)?)(?:\s?[-–]\s?|—)(?=(?P<b>[$€£¥₹]?\d+))",
            b(say.say_range_start),
            bounded=False,
        ),
        rule(
            "word-range",
            r"(?<=[A-Za-z.])\s?[–—-]\s?(?=(?:"
            + "|".join(DAYS + list(DAY_ABBR) + MONTHS)
            + r")\b)|(?<=\d)\s?–\s?(?=[$€£¥₹]\d)|(?<=[\d%°CFm])\s?–\s?(?=\d)"
            + r"|(?<=\b[A-Z])-(?=\d)"
            + r"|(?<=\d(?:st|nd|rd|th))\s?[–-]\s?(?=\d+(?:st|nd|rd|th))"
            + r"|(?<=\d)\s?[–—]\s?(?=(?:"
            + "|".join(MONTHS + list(MONTH_ABBR))
            + r")\b)",
            say.say_word_range_dash,
            bounded=False,
        ),
        rule(
            "mixed-fraction",
            r"(?P<w>\d+)(?:\s(?P<t>\d+)/(?P<b>\d+)|\s?(?P<u>[½⅓⅔¼¾⅛⅜⅝⅞]))",
            lambda m: v.mixed(
                m["w"],
                *((int(m["t"]), int(m["b"])) if m["t"] else UNICODE_FRACTIONS[m["u"]]),
                british,
            ),
        ),
        rule("slash", r"(?P<a>\d{1,3})/(?P<b>\d{1,3})", b(say.say_slash)),
        rule(
            "unicode-fraction",
            r"[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]",
            lambda m: v.fraction(*UNICODE_FRACTIONS[m[0]], british),
            bounded=False,
        ),
        rule("ordinal", r"(?P<n>\d{1,3}(?:,\d{3})*|\d+)(?:st|nd|rd|th)", say.say_ordinal),
        rule(
            "before-number",
            START + r"(?P<word>" + say.alternatives(BEFORE_NUMBER) + r")(?=\s?[$€£¥₹]?\d)",
            lambda m: BEFORE_NUMBER[m["word"]] + " ",
            bounded=False,
        ),
        rule("scaled", r"(?P<n>" + say.NUMBER + r")(?P<scale>[kKMB]|bn)", b(say.say_scaled)),
        rule("number", r"[-−]?(?:" + say.NUMBER + r")|[-−]?\.\d+", b(say.say_number)),
    )

"""English rules: years, seasons, eras and decades ("FY2024", "2023/24", "the 1990s", "44 BC")."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    b = say.variant(british)
    return (
        rule("prefixed-year", r"(?P<p>FY|CY|ES|AY)(?P<y>(?:19|20)\d\d)", b(say.say_prefixed_year)),
        rule("season", r"(?P<y>(?:19|20)\d\d)/(?P<s>\d\d)", b(say.say_season)),
        rule("decade", r"(?:'|’)?(?P<century>1[0-9]|20)?(?P<decade>\d0)s", say.say_decade),
        rule(
            "bc-ad",
            r"(?P<n>\d{1,4})\s(?P<era>AD|BC|BCE|CE|A\.D\.|B\.C\.)",
            b(say.say_bc_ad),
        ),
        rule("short-year", r"['’](?P<n>\d\d)", say.say_short_year),
        rule("era-first", r"(?P<era>AD|A\.D\.|CE)\s(?P<n>\d{3,4})", b(say.say_era_first)),
        rule(
            "range-end-year",
            r"(?<=[-–—])(?P<n>\d{4}|\d{2})",
            b(say.say_range_end_year),
            bounded=False,
        ),
        rule("year", r"(?P<n>1\d\d\d|2[01]\d\d)", b(say.say_year_or_number)),
    )

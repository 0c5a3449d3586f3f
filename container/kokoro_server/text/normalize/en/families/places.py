"""English rules: street addresses: states, house numbers, directions, titles ("St.", "Dr.")."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    return (
        rule("state", r"(?P<st>[A-Z]{2})(?=\s\d{5}(?:-\d{4})?\b)", say.say_state),
        rule(
            "house-number",
            r"(?P<n>\d{3,4})(?=\s(?:[A-Z][a-z]+\s){1,3}(?:St|Street|Ave|Avenue|Rd|Road|Blvd"
            r"|Boulevard|Dr|Drive|Ln|Lane|Way|Pl|Place|Ct|Court|Pkwy|Parkway|Hwy|Highway|Ter"
            r"|Terrace|Sq|Square)\b)",
            say.say_house_number,
        ),
        rule("direction", r"(?P<d>[NSEW])\.?(?=\s\d+(?:st|nd|rd|th)\b)", say.say_direction),
        rule(
            "title",
            r"(?P<title>Dr|St)\.(?=(?P<name>\s+(?:[A-Z]|\d))?)|\b(?P<title2>St)(?=[\s,]|$)",
            lambda m: say.say_title_any(m),
            bounded=False,
        ),
    )

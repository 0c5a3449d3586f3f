"""English rules: mathematical notation: powers, superscripts, roots, Greek letters, comparisons."""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule, rule
from kokoro_server.text.normalize.en import say
from kokoro_server.text.normalize.en.tables import GREEK
from kokoro_server.text.normalize.en.technical import say_exponent, superscript_exponent


def rules(british: bool) -> tuple[Rule, ...]:
    """This family's rules for one English variant (rules.py sets where each runs)."""
    return (
        rule(
            "implicit-times",
            r"(?<=\b[A-Z])\((?=[^()+*/-]{0,60}[-+*/][^()]{0,60}\))",
            lambda m: " times (",
            bounded=False,
        ),
        rule("power", r"\^(?P<e>[-−+]?\w+)", say.say_power, bounded=False),
        # Any exponent after a single letter, a digit or a bracket ("x⁻¹", "(a+b)⁴");
        # squared and cubed anywhere ("cm²"), but never a footnote's mark after a word.
        rule(
            "superscript",
            r"(?:(?<=[\d)\]])|(?<=(?<![A-Za-z])[A-Za-z]))[⁻⁺]?[⁰¹²³⁴-⁹]{1,3}|[²³]",
            lambda m: " " + say_exponent(superscript_exponent(m[0])),
            bounded=False,
        ),
        rule("sqrt", r"√", lambda m: "square root of ", bounded=False),
        rule("greek", "|".join(GREEK), lambda m: f" {GREEK[m[0]]} ", bounded=False),
        rule(
            "comparison",
            r"(?<=[\w)²³⁰¹⁴-⁹])\s?(?:<=|>=|[<>≤≥≠])\s?(?=[\w(√−-])|(?<=\bis)\s[≤≥]\s?(?=\d)",
            say.say_comparison,
            bounded=False,
        ),
        rule("approx", r"\s?≈\s?", say.say_approx, bounded=False),
        rule("over", r"(?<=[a-zΔδ])/(?=[A-Za-zΔδ])", lambda m: " over ", bounded=False),
    )

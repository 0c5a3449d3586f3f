"""What assistants write about code and science, read as a person says it: scientific
notation and exponents, programming operators.

These rules run early among the English rules (rules.py places them after e-mail, URLs,
IP addresses and key combinations), before numbers, versions, comparisons and symbols can
claim the pieces of a form they do not understand.
"""

from __future__ import annotations

from kokoro_server.text.normalize.core import Rule


def technical_rules(british: bool) -> tuple[Rule, ...]:
    """The rules of this module, in order, for one English variant."""
    return ()

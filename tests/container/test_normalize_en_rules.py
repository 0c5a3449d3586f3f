"""How the English rule families compose (text/normalize/en/rules.py): one order for every
rule, whatever family defines it, and a table that names a rule twice or leaves one out of
the order is refused rather than silently running in the wrong place."""

from __future__ import annotations

import importlib
import re
from types import SimpleNamespace

import pytest

from kokoro_server.text.normalize.core import rule

# The module, not the `rules` function the package re-exports under the same name.
english = importlib.import_module("kokoro_server.text.normalize.en.rules")


@pytest.mark.parametrize("british", [False, True])
def test_every_family_rule_runs_once_in_the_stated_order(british):
    names = [r.name for r in english.rules(british)]
    assert names == list(english.ORDER)
    defined = [r.name for family in english.FAMILIES for r in family.rules(british)]
    assert sorted(defined) == sorted(names)


def test_specific_forms_run_before_the_bare_number():
    order = english.ORDER
    for specific in ("money", "time", "iso-date", "percent", "phone", "ordinal", "year"):
        assert order.index(specific) < order.index("number"), specific


def _family(*names: str) -> SimpleNamespace:
    return SimpleNamespace(rules=lambda british: tuple(rule(n, "x", lambda m: "y") for n in names))


def test_a_rule_missing_from_the_order_is_refused(monkeypatch):
    monkeypatch.setattr(english, "FAMILIES", (*english.FAMILIES, _family("not-ordered")))
    with pytest.raises(ValueError, match=re.escape("not-ordered")):
        english.rules.__wrapped__(False)


def test_two_rules_with_one_name_are_refused(monkeypatch):
    monkeypatch.setattr(english, "FAMILIES", (*english.FAMILIES, _family("money")))
    with pytest.raises(ValueError, match="two English rules are named 'money'"):
        english.rules.__wrapped__(False)

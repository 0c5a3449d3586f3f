"""English rule family `days` (text/normalize/en/families/days.py): days of the week and
month abbreviations."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import days
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    days,
    [
        ("Closed Tue.", "Closed Tuesday."),
        ("Open Sat. and Sun.", "Open Saturday and Sunday."),
        ("Open M–F.", "Open Monday to Friday."),
        ("It shipped in Dec. and Jan. too.", "It shipped in December and January too."),
    ],
)

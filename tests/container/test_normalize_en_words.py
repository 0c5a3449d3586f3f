"""English rule family `words` (text/normalize/en/families/words.py): abbreviations, initialisms
and ampersands between capitals."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import words
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    words,
    [
        ("e.g. this one", "for example this one"),
        ("the U.S. team", "the U S team"),
        ("AT&T called.", "A T and T called."),
    ],
)

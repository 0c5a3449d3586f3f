"""English rule family `numbers` (text/normalize/en/families/numbers.py): ratios, fractions,
roman numerals, ranges, ordinals, scaled numbers."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import numbers
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    numbers,
    [
        ("A 3:2 ratio.", "A three to two ratio."),
        ("Use 1/2 cup.", "Use one half cup."),
        ("Henry VIII ruled.", "Henry the Eighth ruled."),
        ("Chapter 3–5.", "Chapter three to five."),
        ("the 21st floor", "the twenty-first floor"),
        ("Over 2.5k users.", "Over two point five thousand users."),
    ],
)

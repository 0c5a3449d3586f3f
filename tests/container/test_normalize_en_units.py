"""English rule family `units` (text/normalize/en/families/units.py): percentages, temperatures,
feet and inches, units, sizes."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import units
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    units,
    [
        ("Save 15%.", "Save fifteen percent."),
        ("It is 72°F.", "It is seventy-two degrees Fahrenheit."),
        ("He is 6'2\" tall.", "He is six feet two inches tall."),
        ("Run 5 km.", "Run five kilometers."),
        ("Sizes S-XL.", "Sizes S to X L."),
        ("Run 2x faster.", "Run two times faster."),
    ],
)

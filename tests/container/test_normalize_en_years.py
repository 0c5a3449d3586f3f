"""English rule family `years` (text/normalize/en/families/years.py): years, eras and
decades."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import years
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    years,
    [
        ("Born in 1999.", "Born in nineteen ninety-nine."),
        ("The 1990s were loud.", "The nineteen nineties were loud."),
        ("It was 44 BC.", "It was forty-four B C."),
        ("Revenue in FY2024 grew.", "Revenue in F Y twenty twenty-four grew."),
    ],
)

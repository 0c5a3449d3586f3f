"""English rule family `dates` (text/normalize/en/families/dates.py): numeric and
written-out dates."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import dates
from tests.support.normalization_table import family_test, variant_test

test_the_family_says_its_forms = family_test(
    dates,
    [
        ("Meet on 2024-03-15.", "Meet on March fifteenth, twenty twenty-four."),
        ("It opens Jan. 5.", "It opens January fifth."),
    ],
)

test_american_and_british_readings_differ = variant_test(
    dates,
    [
        (
            "Due 3/4/2025.",
            "Due March fourth, twenty twenty-five.",
            "Due the third of April, twenty twenty-five.",
        ),
        (
            "Meet on 2024-03-15.",
            "Meet on March fifteenth, twenty twenty-four.",
            "Meet on fifteenth of March, twenty twenty-four.",
        ),
    ],
)

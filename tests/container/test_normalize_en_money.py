"""English rule family `money` (text/normalize/en/families/money.py): prices, price ranges,
rates and cents."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import money
from tests.support.normalization_table import family_test, variant_test

test_the_family_says_its_forms = family_test(
    money,
    [
        ("It costs $29.99.", "It costs twenty-nine dollars and ninety-nine cents."),
        ("Only 50¢.", "Only fifty cents."),
    ],
)

test_american_and_british_readings_differ = variant_test(
    money,
    [
        (
            "Rooms are $80–$120/night.",
            "Rooms are eighty to one hundred twenty dollars a night.",
            "Rooms are eighty to one hundred and twenty dollars a night.",
        ),
    ],
)

"""English rule family `places` (text/normalize/en/families/places.py): street addresses: house
numbers, states, directions, titles."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import places
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    places,
    [
        ("Visit 1600 Pennsylvania Avenue.", "Visit sixteen hundred Pennsylvania Avenue."),
        ("Dr. Smith is in.", "Doctor Smith is in."),
    ],
)

"""English rule family `notation` (text/normalize/en/families/notation.py): powers, roots
and comparisons."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import notation
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    notation,
    [
        ("Take √x now.", "Take square root of x now."),
        ("a ≈ b", "a is approximately b"),
    ],
)

"""English rule family `punctuation` (text/normalize/en/families/punctuation.py): dashes,
slashes and symbols read as pauses or words."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import punctuation
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    punctuation,
    [
        ("Wait — what?", "Wait, what?"),
        ("yes / no", "yes, no"),
        ("Rock & roll", "Rock and roll"),
    ],
)

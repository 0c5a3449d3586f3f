"""English rule family `times` (text/normalize/en/families/times.py): clock times, time ranges
and time zones."""

from __future__ import annotations

from kokoro_server.text.normalize.en.families import times
from tests.support.normalization_table import family_test

test_the_family_says_its_forms = family_test(
    times,
    [
        ("Call at 10:30 am.", "Call at ten thirty A M."),
        ("Open 9am-5pm EST.", "Open nine A M to five P M E S T."),
        ("Lunch at noon–2 pm.", "Lunch at noon to two P M."),
    ],
)

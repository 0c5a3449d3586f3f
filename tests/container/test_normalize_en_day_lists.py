"""Days joined by slashes, as opening hours are written: every day is read, joined as a list,
whatever period follows an abbreviation (the slash is never read "over")."""

from __future__ import annotations

import pytest

from kokoro_server.text.normalize import normalize


def spoken(text: str) -> str:
    return " ".join(w.spoken for w in normalize(text, "en-us"))


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("Open Tue/Thu.", "Open Tuesday and Thursday."),
        ("Open Tue./Thu. only", "Open Tuesday and Thursday only"),
        ("Open Mon/Wed/Fri.", "Open Monday, Wednesday and Friday."),
        ("Closed Sat/Sun.", "Closed Saturday and Sunday."),
        ("Tue/Thu", "Tuesday and Thursday"),
    ],
)
def test_days_joined_by_slashes_are_a_list(written: str, said: str) -> None:
    assert spoken(written) == said

"""English normalization, table-driven: each written form sounds like what a person says.

Every case goes through the server's phonemes route twice, once written ("$29.99") and once
as a person would say it ("twenty-nine dollars and ninety-nine cents"); the two must give
the same phonemes, stress and punctuation aside. The table is tests/container/data/
en_normalization.tsv (also the accuracy set of the normalizer study in docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.normalization_table import CASES
from tests.support.phonemes_route import phonemes, said

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def client(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.http, timeout=30) as c:
        yield c


def test_the_table_is_big_and_covers_every_kind():
    assert len(CASES) >= 150
    kinds = {category for category, _, _ in CASES}
    expected = {"money", "decimal", "percent", "time", "date", "year", "ordinal", "phone"}
    assert expected | {"measure", "url", "email", "abbreviation"} <= kinds


@pytest.mark.parametrize(("category", "written", "spoken"), CASES, ids=[c[1] for c in CASES])
def test_written_form_sounds_like_what_a_person_says(client, category, written, spoken):
    # The local voices are Japanese; they read Latin-script text with the English front end.
    voice = "jf_alpha"
    got = phonemes(client, written, voice=voice)
    want = phonemes(client, spoken, voice=voice)
    assert said(got["phonemes"]) == said(want["phonemes"]), (got["normalized"], spoken)

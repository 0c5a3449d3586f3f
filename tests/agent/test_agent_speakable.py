"""Incremental speakable cleanup: markdown, list markers, link targets and emoji removed,
with the same output whatever the delta boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_agent.speakable import SpeakableFilter, speakable


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("**Sure!** Your order *shipped*.", "Sure! Your order shipped."),
        ("## Status\nIt shipped.", "Status\nIt shipped."),
        ("- first item\n- second item", "first item\nsecond item"),
        ("* star\n+ plus\n• dot", "star\nplus\ndot"),
        ("1. one\n2) two\n10. ten", "one\ntwo\nten"),
        ("> quoted", "quoted"),
        ("See [the docs](https://example.com/a_(b)) now.", "See the docs now."),
        ("Use `make demo` today.", "Use make demo today."),
        ("Great news 🎉🚚! Done ✅.", "Great news ! Done ."),
        ("Family 👨‍👩‍👧 trip ❤️ now", "Family  trip  now"),
        ("~~old~~ new", "old new"),
        # Ordinary text that merely looks like markers stays.
        ("-5 degrees and 3.5 km, 1.5x faster.", "-5 degrees and 3.5 km, 1.5x faster."),
        ("Dr. Smith paid $29.99 at 10:30 a.m.", "Dr. Smith paid $29.99 at 10:30 a.m."),
        (
            "Mail me at a@b.co or see https://x.io/p?q=1.",
            "Mail me at a@b.co or see https://x.io/p?q=1.",
        ),
        ("こんにちは。**今日**は晴れです！", "こんにちは。今日は晴れです！"),
        ("12", "12"),
        ("#", "#"),
    ],
)
def test_cleanup(raw: str, clean: str) -> None:
    assert speakable(raw) == clean


def test_marker_split_across_deltas_is_held_until_decided() -> None:
    f = SpeakableFilter()
    assert f.feed("Intro.\n") == "Intro.\n"
    assert f.feed("-") == ""  # could be a bullet...
    assert f.feed(" item") == "item"  # ...and it was
    assert f.feed("\n1") == "\n"
    assert f.feed("2") == ""
    assert f.feed(" apples") == "12 apples"  # a number, not a list marker
    assert f.feed(" [link]") == " link"
    assert f.feed("(http://x") == ""
    assert f.feed(")!") == "!"
    assert f.finish() == ""


MARKDOWNISH = st.text(
    alphabet=st.sampled_from([*"ab .,!?\n-*_#>`[]()12🎉✅:|~", "\u200d", "é", "語"]),
    max_size=60,
)


@given(MARKDOWNISH, st.lists(st.integers(min_value=0, max_value=60), max_size=8))
def test_output_does_not_depend_on_delta_boundaries(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    f = SpeakableFilter()
    assert "".join(f.feed(p) for p in pieces) + f.finish() == speakable(text)


@given(MARKDOWNISH)
def test_no_markdown_emphasis_or_emoji_survives(text: str) -> None:
    out = speakable(text)
    assert not set(out) & set("*`~[]🎉✅\u200d")

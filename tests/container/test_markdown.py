"""The markdown front end, rule by rule (text/markdown.py, text/cleaning.py,
text/emoji_speech.py): what a person reading the text aloud would say, never the markup."""

from __future__ import annotations

import pytest

from kokoro_server.text.cleaning import clean
from kokoro_server.text.markdown import MAX_HOLD, MarkdownSpeech


def said(text: str, **options: object) -> list[str]:
    """The lines (sentences to be) of text after the markdown step."""
    plain = MarkdownSpeech(**options).convert(text)  # type: ignore[arg-type]
    return [line for line in plain.split("\n") if line]


def fed_by_character(text: str) -> list[str]:
    """As `said`, the text arriving one character per delta."""
    md = MarkdownSpeech()
    plain = "".join(md.feed(ch) for ch in text) + md.flush()
    return [line for line in plain.split("\n") if line]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "See [the setup page](/docs/setup) before you start.",
            "See the setup page before you start.",
        ),
        ("Read **this** and *that* and ~~not~~ __now__.", "Read this and that and not now."),
        ("Run `pip install kokoro` first.", "Run pip install kokoro first."),
        ("Logo: ![a red fox](fox.png) here.", "Logo: a red fox here."),
        (
            "Docs at <https://docs.example.com/setup/x?y=1> today.",
            "Docs at docs.example.com today.",
        ),
        ("Keep snake_case and 2 * 3 = 6.", "Keep snake_case and 2 * 3 = 6."),
        ("Use **bold * here** and a*b*c.", "Use bold * here and abc."),
        ("An escaped \\*star\\* and AT&amp;T.", "An escaped star and AT&T."),
        ("[Kokoro](/kˈOkəɹO/) is a link now.", "Kokoro is a link now."),
        ("Say {Kokoro|/kˈOkəɹO/} *twice*.", "Say {Kokoro|/kˈOkəɹO/} twice."),
    ],
)
def test_inline_markup_is_not_read(text, expected):
    assert said(text) == [expected]


def test_blocks_become_sentences_and_markers_are_not_read():
    text = (
        "# Getting started\n"
        "Intro text\n"
        "## Step 1: install ##\n"
        "- first item\n"
        "* second item!\n"
        "1. numbered\n"
        "2) also numbered:\n"
        "- [ ] a task\n"
        "- [x] done task\n"
        "> quoted words\n"
        "> - a quoted item\n"
        "---\n"
        "***\n"
        "#hashtag stays\n"
        "2024 was a year.\n"
    )
    assert said(text) == [
        "Getting started.",
        "Intro text",
        "Step 1: install.",
        "first item.",
        "second item!",
        "numbered.",
        "also numbered:",
        "a task.",
        "done task.",
        "quoted words",
        "a quoted item.",
        "#hashtag stays",
        "2024 was a year.",
    ]


def test_tables_read_row_by_row_with_commas():
    text = "| Name | Price |\n|:-----|------:|\n| Apple | $1 |\n| **Pear** | `$2` |\n"
    assert said(text) == ["Name, Price.", "Apple, $1.", "Pear, $2."]


def test_a_fenced_code_block_is_one_notice_in_the_voices_language():
    text = "Try this:\n```python\nprint('*hi*')\n# not a heading\n```\nDone.\n~~~\ncode\n~~~~\nEnd"
    assert said(text) == [
        "Try this:",
        "Here is a code block.",
        "Done.",
        "Here is a code block.",
        "End",
    ]
    md = MarkdownSpeech()
    assert md.feed("```\nx = 1\n```\n", "fr-fr") == "Voici un bloc de code.\n"
    # Unclosed: the rest of the text is code.
    assert said("Look:\n```\nall code\nstill code") == ["Look:", "Here is a code block."]


def test_emoji_are_dropped_or_named():
    text = "Great job 🎉 and 👍🏽 👨\u200d👩\u200d👧 1️⃣ © ™"
    assert said(text) == ["Great job and 1 © ™"]
    assert said(text, emoji="name") == ["Great job party popper and thumbs up man woman girl 1 © ™"]
    assert said("# Launch 🚀") == ["Launch."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A lone emoji between two words of one sentence stands for a word.
        ("I ❤️ this", "I love this"),
        ("Swipe ⬅️ to delete", "Swipe left to delete"),
        ("Rated 4.8 ⭐ on it", "Rated 4.8 stars on it"),
        ("Rated 1 ⭐ only", "Rated 1 star only"),
        ("Tap the 🧭 icon", "Tap the compass icon"),  # not in the table: its short name
        ("got 3 🎈 today", "got 3 balloons today"),
        # Decorative: after the noun it illustrates, before punctuation or a capital, after
        # punctuation, in a run, at a line's start or end.
        ("The café ☕ opens at 7.", "The café opens at 7."),
        ("Good morning ☀️ Here it is.", "Good morning Here it is."),
        ("Status: 🟢 all good", "Status: all good"),
        ("the team 👍 👍 shipped", "the team shipped"),
        ("❤️ this one", "this one"),
        ("we love it ❤️", "we love it"),
        ("| a ❤️ | b |", "a, b."),
    ],
)
def test_an_emoji_inside_a_sentence_is_read_as_the_word_it_stands_for(text, expected):
    assert said(text) == [expected]
    # However the text is split into deltas.
    md = MarkdownSpeech()
    assert "".join(md.feed(ch) for ch in text) + md.flush() == expected


def test_naming_emoji_reads_the_word_an_emoji_stands_for_and_names_the_decorative_ones():
    assert said("I ❤️ this and 🎉 that", emoji="name") == ["I love this and party popper that"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Results\n=======\nAll tests passed.", ["Results", "All tests passed."]),
        ("=====\nnot an underline", ["=====", "not an underline"]),  # no paragraph above
        ("Line one.<br>Line two.", ["Line one.", "Line two."]),
        ("Line one<br/>Line two", ["Line one.", "Line two"]),
        ("Say <b>this</b> and <em>that</em>.", ["Say this and that."]),
        ("Keep a <tag> as text.", ["Keep a <tag> as text."]),
        (
            "Check the [pricing page][pricing] now.\n\n[pricing]: https://example.com/p",
            ["Check the pricing page now."],
        ),
        ("See [the docs][] and ![a fox][fox].", ["See the docs and a fox."]),
        ("Index a[i][j] stays.", ["Index a[i][j] stays."]),
    ],
)
def test_setext_headings_html_tags_and_reference_links(text, expected):
    assert said(text) == expected
    assert fed_by_character(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "| Day | High |\n|---|---|\n| Mon | 72 |\n| Sun | 70 |",
            ["Day, High.", "Monday, 72.", "Sunday, 70."],
        ),
        ("|Mon|Tue|", ["Monday, Tuesday."]),
        ("| x | Thu |", ["x, Thursday."]),
        # Not a whole cell, not a table, or "Sun" with no other day in the table: as written.
        ("| Mon to Fri | open |", ["Mon to Fri, open."]),
        ("Mon is here", ["Mon is here"]),
        ("| Sun | a star |", ["Sun, a star."]),
    ],
)
def test_a_table_cell_that_is_a_day_abbreviation_reads_the_day(text, expected):
    assert said(text) == expected
    assert fed_by_character(text) == expected


def test_a_day_abbreviation_in_another_languages_table_is_read_as_written():
    assert MarkdownSpeech().convert("| Mon |", "fr-fr") == "Mon."


def test_control_characters_and_escape_sequences_go_first():
    raw = (
        "Red \x1b[31mwarning\x1b[0m, \x1b]0;title\x07bell\x07 zero\u200bwidth "
        "\u202eRTL\u202c\r\nnext\ttab"
    )
    assert clean(raw) == "Red warning, bell zerowidth RTL\nnext tab"
    assert said("\x1b[1m**Bold**\x1b[0m text\x00.") == ["Bold text."]


def test_a_stray_opener_holds_the_stream_at_most_max_hold_characters():
    md = MarkdownSpeech()
    out = md.feed("Hello `stray and some words ")
    assert out == "Hello"  # the code span may still close: held from the backtick
    out += md.feed("x" * MAX_HOLD + " more")
    assert "stray and some words" in out and "`" not in out  # read literally, not lost
    assert md.buffered_chars < 10
    md = MarkdownSpeech()
    assert md.feed("A stray *star holds nothing back ") == "A stray star holds nothing back"


def test_a_link_is_held_until_it_closes_then_read_as_its_text():
    md = MarkdownSpeech()
    parts = [md.feed(d) for d in ["See [the set", "up page](/do", "cs/setup) before ", "you"]]
    assert parts[:2] == ["See", ""] and "docs" not in "".join(parts)
    assert "".join(parts) + md.flush() == "See the setup page before you"


def test_reset_drops_what_is_held():
    md = MarkdownSpeech()
    md.feed("Hello [unfinished link")
    md.reset()
    assert md.buffered_chars == 0
    assert md.convert("fresh") == "fresh"

"""Day labels in lists, flags after a preposition and digit group spaces: what a careful
reader says (text/markdown.py, text/emoji_speech.py, text/cleaning.py), through the real
front end, and what each rule must not claim."""

from __future__ import annotations

import pytest

from devkit.speech_corpus import load_frontend
from kokoro_server.text.cleaning import StreamCleaner, clean
from kokoro_server.text.markdown import MarkdownSpeech

VOICE = "af_heart"


@pytest.fixture(scope="module")
def frontend():
    return load_frontend()


def lines(text: str, language: str = "en-us") -> list[str]:
    """The lines after the markdown step, whole and in 1-character deltas (the same)."""
    whole = MarkdownSpeech().convert(text, language)
    md = MarkdownSpeech()
    streamed = "".join(md.feed(ch, language) for ch in text) + md.flush()
    assert streamed == whole
    return [line for line in whole.split("\n") if line]


def spoken(frontend, text: str) -> str:
    """What the voice says for the text: each line normalized, as the segmenter sends it."""
    return " ".join(frontend(line, VOICE).normalized for line in lines(text))


def phonemes(frontend, text: str) -> str:
    return " ".join(frontend(line, VOICE).phonemes for line in lines(text))


# ---- day labels -------------------------------------------------------------------------


def test_an_opening_hours_list_reads_its_days(frontend):
    text = "### Hours\n- Mon–Fri: 9 AM–6 PM\n- Sat: 10 AM–4 PM\n- Sun: closed"
    assert lines(text) == [
        "Hours.",
        "Monday–Friday: 9 AM–6 PM.",
        "Saturday: 10 AM–4 PM.",
        "Sunday: closed.",
    ]
    assert spoken(frontend, text).startswith("Hours. Monday to Friday: nine A M to six P M.")
    assert phonemes(frontend, "- Sat: 10 AM") == phonemes(frontend, "- Saturday: 10 AM")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- Tue.: 9\n- Thurs: 10", ["Tuesday: 9.", "Thursday: 10."]),
        ("1. Mon-Wed: open", ["Monday-Wednesday: open."]),
        ("- **Fri:** late", ["Friday: late."]),
        ("Sat: 10 to 4\nSun: closed", ["Saturday: 10 to 4", "Sunday: closed"]),  # lines
        ("- Sat: 10\n\n- Sun: 12", ["Saturday: 10.", "Sunday: 12."]),  # a loose list
    ],
)
def test_a_day_label_starting_a_list_item_or_line_reads_the_day(text, expected):
    assert lines(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "Sun:" with no day label before it in the list: the star, perhaps.
        ("- Sun: a star\n- Moon: a rock", ["Sun: a star.", "Moon: a rock."]),
        # A heading between them starts a new list.
        ("- Mon: 9\n## Sky\n- Sun: hot", ["Monday: 9.", "Sky.", "Sun: hot."]),
        # Not a label: no colon, not the first word, not a day.
        ("- Sat down: rest", ["Sat down: rest."]),
        ("- Open Sat: yes", ["Open Sat: yes."]),
        ("- Mar: spring", ["Mar: spring."]),
        ("- Monday: 9", ["Monday: 9."]),
    ],
)
def test_what_is_no_day_label_is_read_as_written(text, expected):
    assert lines(text) == expected


def test_day_labels_are_english_only():
    assert lines("- Sat: 10", "fr-fr") == ["Sat: 10."]


# ---- flags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Heading to 🇫🇷 next week!", "Heading to France next week!"),
        ("Flying to 🇯🇵!", "Flying to Japan!"),
        ("Moving to 🇺🇸 soon.", "Moving to the United States soon."),
        ("Greetings from 🇳🇱.", "Greetings from the Netherlands."),
        ("Rooting for 🇧🇷 tonight", "Rooting for Brazil tonight"),
        # A flag after a word that needs a noun reads its name, as any emoji does there.
        ("The 🇫🇷 team won", "The France team won"),
    ],
)
def test_a_flag_after_a_preposition_names_its_place(frontend, text, expected):
    assert lines(text) == [expected]
    assert phonemes(frontend, text) == phonemes(frontend, expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # After the place it illustrates, before the next sentence, in a run: decorative.
        ("Welcome to Japan 🇯🇵! Here are some tips.", "Welcome to Japan! Here are some tips."),
        ("We love France 🇫🇷 and its food", "We love France and its food"),
        ("Off to 🇫🇷🇮🇹 soon", "Off to soon"),
        # Not a flag: a preposition does not make any emoji a place.
        ("Thanks for 🙏 everything", "Thanks for everything"),
        ("Off to 🏁 now", "Off to now"),
    ],
)
def test_a_flag_that_illustrates_is_not_read(text, expected):
    assert lines(text) == [expected]


def test_a_dropped_emoji_leaves_no_space_before_punctuation():
    assert lines("Great job 🎉, thanks!") == ["Great job, thanks!"]
    assert lines("Great job 🎉 , thanks!") == ["Great job , thanks!"]  # as written


# ---- digit group spaces ------------------------------------------------------------------


@pytest.mark.parametrize("space", ["\u2009", "\u202f", "\u2007", "\u00a0"])
def test_a_digit_group_space_reads_as_grouping(frontend, space):
    text = f"The deposit came to 10{space}000 euros."
    assert spoken(frontend, text) == "The deposit came to ten thousand euros."
    assert clean(f"1{space}234{space}567 people") == "1,234,567 people"


@pytest.mark.parametrize(
    "text",
    [
        "3.141\u2009592",  # the digits of a fraction
        "1,000\u2009000",  # already grouped by commas
        "1234\u2009567",  # four digits before it: not a group
        "12\u20093456",  # four after it
        "12\u200934",  # two after it
        "v2\u2009000",  # after a letter
        "10\u00a0km",  # a no-break space before a unit
        "Price:\u202f€25",
    ],
)
def test_a_space_that_does_not_group_digits_stays(text):
    assert clean(text) == text


def test_a_group_after_a_space_that_groups_nothing_is_no_group():
    assert clean("1234\u2009567\u2009890 a") == "1234\u2009567\u2009890 a"
    assert clean("1\u2009000\u2009000\u20090001 b") == "1,000,000\u20090001 b"


@pytest.mark.parametrize("language", ["fr-fr", "es", "it", "pt-br"])
def test_languages_that_read_a_group_space_keep_it(frontend, language):
    assert clean("10\u2009000 €", language) == "10\u2009000 €"
    assert MarkdownSpeech().convert("10\u2009000 €", language) == "10 000 €"
    assert clean("10\u2009000 €", "hi") == "10,000 €"


def test_a_group_space_split_across_deltas_is_held_at_most_four_characters():
    cleaner = StreamCleaner()
    assert cleaner.feed("about 10\u2009") == "about 10"
    assert cleaner.buffered_chars == 1
    assert cleaner.feed("000") == ""
    assert cleaner.buffered_chars == 4
    assert cleaner.feed(" euros") == ",000 euros"
    assert cleaner.buffered_chars == 0
    assert cleaner.feed("5\u200912") == "5"
    assert cleaner.flush() == "\u200912"  # the end of the text: two digits are no group


# ---- a lone asterisk ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use the * wildcard to match any file.", "Use the asterisk wildcard to match any file."),
        ("Write x * 2 to double it.", "Write x times two to double it."),
    ],
)
def test_an_asterisk_alone_between_spaces_is_read(frontend, text, expected):
    assert spoken(frontend, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Read *this* now", "Read this now"),  # emphasis
        ("An *open marker", "An open marker"),  # a delimiter without its partner
        ("a*b*c and **x**", "abc and x"),
    ],
)
def test_an_asterisk_that_marks_emphasis_is_still_not_read(text, expected):
    assert lines(text) == [expected]


# ---- long held words ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "a" * 900 + " end",
        "`" * 700 + " b",
        "x`" + "a" * 600 + "` c",  # a code span closed past the hold limit: literal
        "[" * 600 + " d",
        "x" + "!" * 400 + "[a](b) e",  # the last "!" became an image
        "* " * 300 + "f",
        "#" * 50 + " g",
        "- Sat:" + "a" * 500 + " h",
        "to 🇫🇷" + "!" * 300,
        "`Word```",  # a closing run at the end may still grow: not settled
    ],
)
def test_a_long_word_held_across_many_deltas_reads_as_it_does_whole(text):
    """The scan of a held word resumes where it settled on the next delta: the same text."""
    whole = MarkdownSpeech().convert(text)
    for size in (1, 7):
        md = MarkdownSpeech()
        pieces = [md.feed(text[i : i + size]) for i in range(0, len(text), size)]
        assert "".join(pieces) + md.flush() == whole

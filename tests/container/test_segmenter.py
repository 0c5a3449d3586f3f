"""Hand-written cases for the incremental sentence segmenter, plus release timing and API.

Every table case is checked twice: fed as one delta and fed one character at a time, both
followed by flush; the two must give the expected pieces.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from kokoro_server.text.segmenter import SentenceSegmenter

OFF = {"first_clause": False}
ON = {"first_clause": True, "first_clause_min_chars": 20}

# (id, text, expected pieces, constructor arguments)
CASES: list[tuple[str, str, list[str], dict]] = [
    # -- basic terminators ----------------------------------------------------------------
    ("two-sentences", "Hello there. How are you?", ["Hello there.", "How are you?"], OFF),
    ("exclamation", "Stop! Go now.", ["Stop!", "Go now."], OFF),
    ("question", "Ready? Yes.", ["Ready?", "Yes."], OFF),
    ("interrobang-combo", "Really?! I had no idea.", ["Really?!", "I had no idea."], OFF),
    ("repeated-bangs", "Wow!!! That is great!!", ["Wow!!!", "That is great!!"], OFF),
    ("single-sentence-no-terminator", "just some words", ["just some words"], OFF),
    (
        "lowercase-after-period-no-split",
        "It works. mostly, anyway.",
        ["It works. mostly, anyway."],
        OFF,
    ),
    ("bang-before-lowercase", "Oh! he said.", ["Oh! he said."], OFF),
    (
        "digit-starts-next-sentence",
        "It costs 3. 4 people paid.",
        ["It costs 3.", "4 people paid."],
        OFF,
    ),
    ("extra-spaces", "  One.   Two.  ", ["One.", "Two."], OFF),
    # -- decimals and numbers -------------------------------------------------------------
    ("decimal", "Pi is 3.14 roughly. Next.", ["Pi is 3.14 roughly.", "Next."], OFF),
    ("money", "It costs $29.99. Buy it.", ["It costs $29.99.", "Buy it."], OFF),
    ("thousands", "We sold 1,000.5 units. Nice.", ["We sold 1,000.5 units.", "Nice."], OFF),
    ("number-prefix-no", "See No. 5 today. Then go.", ["See No. 5 today.", "Then go."], OFF),
    ("number-prefix-fig", "As in Fig. 3 above. Right.", ["As in Fig. 3 above.", "Right."], OFF),
    ("month-abbrev", "Due Jan. 5 at noon. Ok.", ["Due Jan. 5 at noon.", "Ok."], OFF),
    ("page-ref", "Read p. 12 first. Then p. 13.", ["Read p. 12 first.", "Then p. 13."], OFF),
    ("year-at-end", "It was 2024. Then came 2025.", ["It was 2024.", "Then came 2025."], OFF),
    # -- abbreviations and titles ---------------------------------------------------------
    ("dr-smith", "Dr. Smith is here. He waits.", ["Dr. Smith is here.", "He waits."], OFF),
    (
        "mr-and-mrs",
        "Mr. and Mrs. Jones came. Ms. Lee too.",
        ["Mr. and Mrs. Jones came.", "Ms. Lee too."],
        OFF,
    ),
    ("prof", "Ask Prof. Xu. She knows.", ["Ask Prof. Xu.", "She knows."], OFF),
    (
        "saint-louis",
        "We flew to St. Louis. It rained.",
        ["We flew to St. Louis.", "It rained."],
        OFF,
    ),
    ("mount", "Mt. Everest is tall. Very.", ["Mt. Everest is tall.", "Very."], OFF),
    (
        "eg-lowercase",
        "Fruit, e.g. apples, is good. Eat.",
        ["Fruit, e.g. apples, is good.", "Eat."],
        OFF,
    ),
    (
        "eg-capital",
        "Use a city, e.g. Paris. It works.",
        ["Use a city, e.g. Paris.", "It works."],
        OFF,
    ),
    ("ie", "One option, i.e. The Big One, won.", ["One option, i.e. The Big One, won."], OFF),
    ("versus", "Team A vs. Team B tonight. Watch.", ["Team A vs. Team B tonight.", "Watch."], OFF),
    ("et-al", "Smith et al. Showed it. Really.", ["Smith et al. Showed it.", "Really."], OFF),
    ("etc-mid-sentence", "Apples, pears, etc. are fruit.", ["Apples, pears, etc. are fruit."], OFF),
    (
        "etc-sentence-end",
        "Apples, pears, etc. Then bread.",
        ["Apples, pears, etc.", "Then bread."],
        OFF,
    ),
    (
        "inc-sentence-end",
        "I work at Acme Inc. It is fine.",
        ["I work at Acme Inc.", "It is fine."],
        OFF,
    ),
    ("us-army", "The U.S. Army is big. Yes.", ["The U.S. Army is big.", "Yes."], OFF),
    (
        "us-before-capital-kept",
        "I live in the U.S. The weather is nice.",
        ["I live in the U.S. The weather is nice."],
        OFF,
    ),
    ("us-at-end", "I live in the U.S.", ["I live in the U.S."], OFF),
    ("phd", "She has a Ph.D. in math. Wow.", ["She has a Ph.D. in math.", "Wow."], OFF),
    # -- initials ---------------------------------------------------------------------------
    (
        "tolkien",
        "J. R. R. Tolkien wrote it. Read it.",
        ["J. R. R. Tolkien wrote it.", "Read it."],
        OFF,
    ),
    (
        "jfk",
        "John F. Kennedy spoke. People listened.",
        ["John F. Kennedy spoke.", "People listened."],
        OFF,
    ),
    ("glued-initials", "J.R.R. Tolkien again. Yes.", ["J.R.R. Tolkien again.", "Yes."], OFF),
    # -- times ------------------------------------------------------------------------------
    (
        "am-mid",
        "Meet at 10:30 a.m. on Friday. Bye.",
        ["Meet at 10:30 a.m. on Friday.", "Bye."],
        OFF,
    ),
    ("pm-end", "We close at 9 p.m. Come early.", ["We close at 9 p.m.", "Come early."], OFF),
    ("clock-colon", "It is 10:30 now. Go.", ["It is 10:30 now.", "Go."], OFF),
    # -- versions, URLs, e-mail -------------------------------------------------------------
    (
        "version",
        "Install v1.2.3 today. It is stable.",
        ["Install v1.2.3 today.", "It is stable."],
        OFF,
    ),
    (
        "version-at-end",
        "We shipped Python 3.12.1. Upgrade.",
        ["We shipped Python 3.12.1.", "Upgrade."],
        OFF,
    ),
    (
        "url",
        "Visit https://example.com/a.b?c=d. Then log in.",
        ["Visit https://example.com/a.b?c=d.", "Then log in."],
        OFF,
    ),
    (
        "url-mid",
        "Open www.example.co.uk now. Thanks.",
        ["Open www.example.co.uk now.", "Thanks."],
        OFF,
    ),
    (
        "url-with-bang-and-query",
        "Go to http://x.io/#!/a?b=1 first. Ok!",
        ["Go to http://x.io/#!/a?b=1 first.", "Ok!"],
        OFF,
    ),
    (
        "email",
        "Mail john.doe@example.com. We reply fast.",
        ["Mail john.doe@example.com.", "We reply fast."],
        OFF,
    ),
    (
        "lowercase-brand-after-period",
        "It is out. iPhone users rejoice.",
        ["It is out. iPhone users rejoice."],
        OFF,
    ),
    # -- ellipses ---------------------------------------------------------------------------
    ("ellipsis-lowercase", "Well... maybe. Fine.", ["Well... maybe.", "Fine."], OFF),
    ("ellipsis-char", "Well… maybe not.", ["Well… maybe not."], OFF),
    ("ellipsis-glued", "Well...maybe not.", ["Well...maybe not."], OFF),
    ("ellipsis-capital", "Wait... What happened?", ["Wait...", "What happened?"], OFF),
    ("ellipsis-at-end", "And then...", ["And then..."], OFF),
    # -- quotes and brackets ----------------------------------------------------------------
    (
        "quote-after-bang",
        'He said "Stop!" Then he left.',
        ['He said "Stop!"', "Then he left."],
        OFF,
    ),
    (
        "quote-lowercase",
        '"Stop!" he said. Then he left.',
        ['"Stop!" he said.', "Then he left."],
        OFF,
    ),
    ("curly-quotes", "She said “Yes.” Then she left.", ["She said “Yes.”", "Then she left."], OFF),
    (
        "single-quotes",
        "'Really?' she asked. 'Yes.' I said.",
        ["'Really?' she asked.", "'Yes.'", "I said."],
        OFF,
    ),
    ("paren-aside", "(This is an aside.) Then more.", ["(This is an aside.)", "Then more."], OFF),
    (
        "opening-quote-next",
        'It ended. "Next one," he said.',
        ["It ended.", '"Next one," he said.'],
        OFF,
    ),
    ("opening-quote-lowercase", 'It ended... "maybe" not.', ['It ended... "maybe" not.'], OFF),
    ("quote-glued-no-space", '"Stop."Then he left.', ['"Stop."Then he left.'], OFF),
    ("markdown-bold", "**Note.** Read this.", ["**Note.**", "Read this."], OFF),
    ("brackets-nested", "Done (see [1].) Next up.", ["Done (see [1].)", "Next up."], OFF),
    # -- newlines ---------------------------------------------------------------------------
    ("newline", "Hello\nWorld", ["Hello", "World"], OFF),
    ("blank-line", "First para\n\nSecond para", ["First para", "Second para"], OFF),
    ("crlf", "Line one\r\nLine two\r\n", ["Line one", "Line two"], OFF),
    ("newline-after-abbrev", "See Dr.\nSmith", ["See Dr.", "Smith"], OFF),
    ("newline-mid-sentence", "This sentence\ncontinues", ["This sentence", "continues"], OFF),
    (
        "numbered-list",
        "Steps:\n1. Open the box.\n2. Remove it.",
        ["Steps:", "1. Open the box.", "2. Remove it."],
        OFF,
    ),
    ("list-marker-inline", "1. Open it. 2. Close it.", ["1. Open it.", "2. Close it."], OFF),
    ("rule-line-merged", "Intro\n---\nBody text", ["Intro", "---\nBody text"], OFF),
    ("unicode-line-separator", "One\u2028Two", ["One", "Two"], OFF),
    # -- CJK and other scripts ----------------------------------------------------------------
    ("cjk-chinese", "你好。我很好！谢谢？", ["你好。", "我很好！", "谢谢？"], OFF),
    ("cjk-closing-bracket", "「你好。」他说。", ["「你好。」", "他说。"], OFF),
    (
        "cjk-japanese",
        "こんにちは。元気ですか？はい！",
        ["こんにちは。", "元気ですか？", "はい！"],
        OFF,
    ),
    ("cjk-ascii-punct", "你好吗?我很好.", ["你好吗?", "我很好."], OFF),
    ("cjk-then-english", "谢谢。Thank you. Bye.", ["谢谢。", "Thank you.", "Bye."], OFF),
    ("cjk-halfwidth", "ｺﾝﾆﾁﾊ｡ｹﾞﾝｷ", ["ｺﾝﾆﾁﾊ｡", "ｹﾞﾝｷ"], OFF),
    ("cjk-decimal-kept", "价格是3.14元。好的。", ["价格是3.14元。", "好的。"], OFF),
    ("hindi-danda", "नमस्ते। आप कैसे हैं?", ["नमस्ते।", "आप कैसे हैं?"], OFF),
    ("arabic-question", "كيف حالك؟ أنا بخير.", ["كيف حالك؟", "أنا بخير."], OFF),
    (
        "mixed-everything",
        "Dr. Smith paid $29.99 at 10:30 a.m. on Jan. 5. Then he left!",
        ["Dr. Smith paid $29.99 at 10:30 a.m. on Jan. 5.", "Then he left!"],
        OFF,
    ),
    # -- punctuation-only and empty input -------------------------------------------------------
    ("empty", "", [], OFF),
    ("whitespace-only", "  \n\n \t ", [], OFF),
    ("punctuation-only-tail", "Done. ...", ["Done.", "..."], OFF),
    ("emoji-merged-forward", "🎉\nParty time!", ["🎉\nParty time!"], OFF),
    # -- first clause -------------------------------------------------------------------------
    (
        "fc-comma",
        "Thanks for calling back about your order, it shipped today. Bye.",
        ["Thanks for calling back about your order,", "it shipped today.", "Bye."],
        ON,
    ),
    (
        "fc-off",
        "Thanks for calling back about your order, it shipped today. Bye.",
        ["Thanks for calling back about your order, it shipped today.", "Bye."],
        OFF,
    ),
    (
        "fc-too-short",
        "Hi there, how are you doing today? Good.",
        ["Hi there, how are you doing today?", "Good."],
        ON,
    ),
    (
        "fc-later-comma",
        "Hi there, my dear old friend, how are you? Good.",
        ["Hi there, my dear old friend,", "how are you?", "Good."],
        ON,
    ),
    (
        "fc-only-first",
        "Thanks for calling back today, friend. Later, in the day, again, yes.",
        ["Thanks for calling back today,", "friend.", "Later, in the day, again, yes."],
        ON,
    ),
    (
        "fc-semicolon",
        "The order shipped this morning; it arrives Thursday.",
        ["The order shipped this morning;", "it arrives Thursday."],
        ON,
    ),
    (
        "fc-colon",
        "Here is what happened today: it shipped.",
        ["Here is what happened today:", "it shipped."],
        ON,
    ),
    (
        "fc-em-dash",
        "The order shipped this morning— it arrives soon.",
        ["The order shipped this morning—", "it arrives soon."],
        ON,
    ),
    (
        "fc-spaced-hyphen",
        "The order shipped this morning - it arrives soon.",
        ["The order shipped this morning -", "it arrives soon."],
        ON,
    ),
    (
        "fc-hyphen-glued-not-clause",
        "A well-known, widely-used, long-lived tool. Yes.",
        ["A well-known, widely-used,", "long-lived tool.", "Yes."],
        ON,
    ),
    (
        "fc-time-not-clause",
        "The meeting starts at 10:30 sharp and ends at noon.",
        ["The meeting starts at 10:30 sharp and ends at noon."],
        ON,
    ),
    (
        "fc-thousands-not-clause",
        "We sold exactly 1,000,000 units, a record.",
        ["We sold exactly 1,000,000 units,", "a record."],
        ON,
    ),
    (
        "fc-cjk-comma",
        "我们今天早上已经把您的订单发货了，预计周四到达。",
        ["我们今天早上已经把您的订单发货了，", "预计周四到达。"],
        {"first_clause": True, "first_clause_min_chars": 10},
    ),
    (
        "fc-quote-after-comma",
        'He said "go ahead and start," then left.',
        ['He said "go ahead and start,"', "then left."],
        ON,
    ),
    (
        "fc-min-zero",
        "Well, fine. Ok.",
        ["Well,", "fine.", "Ok."],
        {"first_clause": True, "first_clause_min_chars": 0},
    ),
    (
        "fc-sentence-first",
        "Hi. Thanks for calling back about your order, truly.",
        ["Hi.", "Thanks for calling back about your order, truly."],
        ON,
    ),
    # -- max_chars ----------------------------------------------------------------------------
    (
        "long-at-clauses",
        "one two three, four five six, seven eight nine, ten.",
        ["one two three, four five six,", "seven eight nine, ten."],
        {"first_clause": False, "max_chars": 30},
    ),
    (
        "long-at-whitespace",
        "alpha beta gamma delta epsilon zeta eta theta",
        ["alpha beta gamma delta", "epsilon zeta eta theta"],
        {"first_clause": False, "max_chars": 22},
    ),
    (
        "long-hard-cut",
        "abcdefghijklmnopqrstuvwxyz",
        ["abcdefghij", "klmnopqrst", "uvwxyz"],
        {"first_clause": False, "max_chars": 10},
    ),
    (
        "long-cjk-no-punct",
        "一二三四五六七八九十一二三",
        ["一二三四五", "六七八九十", "一二三"],
        {"first_clause": False, "max_chars": 5},
    ),
    (
        "long-cjk-comma",
        "一二三，四五六七八九",
        ["一二三，", "四五六七八九"],
        {"first_clause": False, "max_chars": 6},
    ),
    (
        "long-combining-mark-kept",
        "abcde\u0301fgh",
        ["abcd", "e\u0301fgh"],
        {"first_clause": False, "max_chars": 5},
    ),
    (
        "long-exact-fit",
        "Exactly ten. Fits.",
        ["Exactly ten.", "Fits."],
        {"first_clause": False, "max_chars": 12},
    ),
    (
        "long-prefers-late-clause",
        "a, bb cc dd ee ff gg, hh ii jj kk ll",
        ["a, bb cc dd ee ff gg,", "hh ii jj kk ll"],
        {"first_clause": False, "max_chars": 24},
    ),
    (
        "long-first-clause-too",
        "This first clause is rather long, short tail.",
        ["This first clause is", "rather long,", "short tail."],
        {"first_clause": True, "max_chars": 20},
    ),
]


@pytest.mark.parametrize(
    ("text", "expected", "kwargs"),
    [pytest.param(text, expected, kwargs, id=case_id) for case_id, text, expected, kwargs in CASES],
)
def test_table(text: str, expected: list[str], kwargs: dict) -> None:
    whole = SentenceSegmenter(**kwargs)
    assert whole.feed(text) + whole.flush() == expected
    by_char = SentenceSegmenter(**kwargs)
    pieces = [piece for ch in text for piece in by_char.feed(ch)]
    assert pieces + by_char.flush() == expected


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 60
    assert len({case[0] for case in CASES}) == len(CASES)


# -- release timing ---------------------------------------------------------------------------


def test_sentence_released_as_soon_as_next_sentence_starts() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("Hello there. How") == ["Hello there."]
    assert seg.buffered_chars == len("How")
    assert seg.feed(" are you?") == []
    assert seg.flush() == ["How are you?"]


def test_period_at_end_of_delta_waits_for_the_next_character() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("It costs 3.") == []
    assert seg.feed("14 dollars. N") == ["It costs 3.14 dollars."]
    seg.reset()
    assert seg.feed("It costs 3.") == []
    assert seg.feed(" ") == []  # "3. and ..." is still possible
    assert seg.feed("Next") == ["It costs 3."]
    assert seg.buffered_chars == len("Next")


def test_abbreviation_waits_then_continues_the_sentence() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("Ask Dr.") == []
    assert seg.feed(" Smith") == []
    assert seg.feed(". He") == ["Ask Dr. Smith."]


def test_closing_quote_may_still_follow_a_terminator() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed('He said "Stop!') == []
    assert seg.feed('"') == []
    assert seg.feed(" T") == ['He said "Stop!"']


def test_cjk_terminator_released_on_the_next_character() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("你好。") == []  # a closing 」 could still follow
    assert seg.feed("我") == ["你好。"]


def test_newline_releases_immediately() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("First line") == []
    assert seg.feed("\n") == ["First line"]
    assert seg.buffered_chars == 0


def test_first_clause_released_at_the_space_after_the_comma() -> None:
    seg = SentenceSegmenter(first_clause=True, first_clause_min_chars=20)
    assert seg.feed("Thanks for calling back about your order,") == []
    assert seg.feed(" ") == ["Thanks for calling back about your order,"]
    # Only the first piece of the utterance: later commas wait for the sentence end.
    assert seg.feed("it shipped today, from Denver, and") == []
    assert seg.feed(" arrives Thursday. Is") == [
        "it shipped today, from Denver, and arrives Thursday."
    ]


def test_first_clause_applies_again_after_flush_and_reset() -> None:
    seg = SentenceSegmenter(first_clause=True, first_clause_min_chars=5)
    text = "Hello again, friend. Bye"
    first = seg.feed(text) + seg.flush()
    assert first == ["Hello again,", "friend.", "Bye"]
    assert seg.feed(text) + seg.flush() == first
    seg.feed("Something unfinished")
    seg.reset()
    assert seg.feed(text) + seg.flush() == first


def test_long_sentence_released_before_its_end_arrives() -> None:
    seg = SentenceSegmenter(first_clause=False, max_chars=40)
    assert seg.feed("This part is fairly long, and this part") == []
    # The buffer now runs past max_chars, so the clause cut is certain.
    assert seg.feed(" keeps going") == ["This part is fairly long,"]
    assert seg.buffered_chars == len("and this part keeps going")


def test_reset_drops_buffered_text() -> None:
    seg = SentenceSegmenter(first_clause=False)
    seg.feed("Half a sentence that never")
    assert seg.buffered_chars > 0
    seg.reset()
    assert seg.buffered_chars == 0
    assert seg.flush() == []
    assert seg.feed("New one. Next") == ["New one."]


def test_flush_releases_unterminated_tail_and_empties_buffer() -> None:
    seg = SentenceSegmenter(first_clause=False)
    assert seg.feed("First. Second without end") == ["First."]
    assert seg.flush() == ["Second without end"]
    assert seg.buffered_chars == 0
    assert seg.flush() == []


def test_whitespace_is_never_released_or_counted_at_the_start() -> None:
    seg = SentenceSegmenter()
    assert seg.feed("   \n  ") == []
    assert seg.buffered_chars == 0
    assert seg.flush() == []


# -- API errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"max_chars": 0}, ValueError, "max_chars must be >= 1"),
        ({"max_chars": "250"}, TypeError, "max_chars must be an int"),
        ({"max_chars": True}, TypeError, "max_chars must be an int"),
        ({"first_clause_min_chars": -1}, ValueError, "first_clause_min_chars must be >= 0"),
        ({"first_clause_min_chars": 2.5}, TypeError, "first_clause_min_chars must be an int"),
        ({"first_clause": 1}, TypeError, "first_clause must be a bool"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        SentenceSegmenter(**kwargs)


def test_positional_arguments_are_rejected() -> None:
    with pytest.raises(TypeError):
        SentenceSegmenter(False)  # type: ignore[call-arg]  # the call this test proves is refused


@pytest.mark.parametrize("delta", [None, b"bytes", 3])
def test_feed_rejects_non_text(delta: object) -> None:
    seg = SentenceSegmenter()
    with pytest.raises(TypeError, match="delta must be a str"):
        seg.feed(delta)  # type: ignore[arg-type]


# -- cost -----------------------------------------------------------------------------------------


def _feed_all(text: str, step: int) -> tuple[float, int]:
    seg = SentenceSegmenter()
    start = time.perf_counter()
    count = 0
    for i in range(0, len(text), step):
        count += len(seg.feed(text[i : i + step]))
    count += len(seg.flush())
    return time.perf_counter() - start, count


SENTENCES = "Thanks for calling back about your order today. It shipped at 10:30 a.m., Dr. Smith. "

TEXT_OF_SIZE: dict[str, Callable[[int], str]] = {
    "sentences": lambda n: (SENTENCES * (n // len(SENTENCES) + 1))[:n],
    "no-boundary": lambda n: ("word " * n)[:n],  # only max_chars cuts
    "whitespace-lookahead": lambda n: "Hi." + " " * n + "x",  # one long pending decision
    "punctuation-only": lambda n: "-" * n,  # no letter: nothing to release until max_chars
}


@pytest.mark.parametrize("kind", TEXT_OF_SIZE)
def test_feed_cost_is_linear_in_text_length(kind: str) -> None:
    """Four times the text in 3-character deltas must not take ~16 times as long."""
    small, large = TEXT_OF_SIZE[kind](6000), TEXT_OF_SIZE[kind](24000)
    _feed_all(small, 3)  # warm-up
    t_small = min(_feed_all(small, 3)[0] for _ in range(3))
    t_large = min(_feed_all(large, 3)[0] for _ in range(3))
    assert t_large < 8 * t_small + 0.02, (t_small, t_large)

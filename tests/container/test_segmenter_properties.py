"""Property-based tests of the incremental sentence segmenter (hypothesis).

For any text and any split of it into deltas: the released pieces give back the input
(whitespace aside), no piece exceeds max_chars, pieces are stripped and non-empty, and the
segmentation is identical whatever the delta boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kokoro_server.text.segmenter import SentenceSegmenter
from tests.support.scale import examples  # CI's KOKORO_TEST_SCALE=3: the former counts

# Tokens that exercise every rule: abbreviations, numbers, URLs, quotes, CJK, clause marks.
TRICKY_TOKENS = [
    "Dr.", "Mr.", "Mrs.", "Prof.", "St.", "e.g.", "i.e.", "etc.", "U.S.", "Ph.D.", "J.",
    "R.", "a.m.", "p.m.", "No.", "Fig.", "Jan.", "vs.", "et al.", "Inc.", "3.14", "$29.99",
    "10:30", "v1.2.3", "1,000", "https://example.com/a.b?c=d", "john.doe@example.com",
    "Hello", "world", "The", "it", "I", "Smith", "Tolkien", "costs", "5", "3", "1.", "2.",
    "a.", ".", "..", "...", "…", "!", "?", "?!", "!!", "!?", '"', "'", "“", "”", "(", ")",
    "[", "]", '"Stop!"', "(see above.)", "。", "！", "？", "你好", "我很好", "「", "」",
    "こんにちは", "、", "，", "：", ",", ";", ":", "—", "–", "-", "--", "*", "**", "¿", "¡",
    "\n", "\n\n", "\r\n", "\u2028", "🎉", "x\u0301", "Ünïcödé", "ß", "İstanbul",
]  # fmt: skip
SEPARATORS = ["", " ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u3000"]

token_text = st.lists(
    st.tuples(st.sampled_from(TRICKY_TOKENS), st.sampled_from(SEPARATORS)), max_size=60
).map(lambda parts: "".join(tok + sep for tok, sep in parts))
# Random unicode (hypothesis never generates lone surrogates by default).
random_text = st.text(max_size=120)
mixed_text = st.lists(st.one_of(token_text, random_text), max_size=4).map("".join)
any_text = st.one_of(token_text, random_text, mixed_text)

configs = st.fixed_dictionaries(
    {
        "first_clause": st.booleans(),
        "first_clause_min_chars": st.integers(min_value=0, max_value=40),
        "max_chars": st.one_of(st.integers(min_value=1, max_value=60), st.just(250)),
    }
)


# A text and the deltas it arrives in.
Split = tuple[str, list[str]]


@st.composite
def split_text(draw: st.DrawFn, text_strategy: st.SearchStrategy[str]) -> Split:
    """A text and one arbitrary split of it into consecutive deltas (empty ones included)."""
    text = draw(text_strategy)
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=30)))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in pairwise(bounds)]


def no_space(text: str) -> str:
    return "".join(text.split())


def utterance(seg: SentenceSegmenter, deltas: list[str]) -> list[str]:
    """The pieces one utterance releases: each delta fed in turn, then flush."""
    pieces: list[str] = [piece for delta in deltas for piece in seg.feed(delta)]
    return pieces + seg.flush()


def run(config: dict, deltas: list[str]) -> list[str]:
    seg = SentenceSegmenter(**config)
    pieces = utterance(seg, deltas)
    assert seg.buffered_chars == 0
    return pieces


def check_pieces(pieces: list[str], text: str, max_chars: int) -> None:
    assert no_space("".join(pieces)) == no_space(text)
    for piece in pieces:
        assert piece
        assert piece == piece.strip()
        assert len(piece) <= max_chars, (len(piece), piece)


SETTINGS = settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def for_any_config(*inputs: st.SearchStrategy) -> Callable[[Callable], Callable]:
    """A property over the given inputs and any segmenter configuration (the last argument)."""

    def property_test(test: Callable) -> Callable:
        return SETTINGS(given(*inputs, configs)(test))

    return property_test


@for_any_config(split_text(any_text))
def test_pieces_reproduce_input_whatever_the_delta_boundaries(case: Split, config: dict) -> None:
    text, deltas = case
    whole = run(config, [text])
    check_pieces(whole, text, config["max_chars"])
    assert run(config, deltas) == whole


@for_any_config(any_text)
def test_character_by_character_feeding_matches_one_delta(text: str, config: dict) -> None:
    assert run(config, list(text)) == run(config, [text])


@for_any_config(split_text(token_text))
def test_held_back_text_is_bounded_by_max_chars_plus_lookahead(case: Split, config: dict) -> None:
    """feed() only ever holds back one unfinished piece plus the lookahead deciding its end."""
    text, deltas = case
    longest_space = max((len(m) for m in re.findall(r"\s+", text)), default=0)
    seg = SentenceSegmenter(**config)
    for delta in deltas:
        seg.feed(delta)
        # Lookahead: the whitespace run after a terminator and at most 3 opening quotes,
        # plus trailing whitespace of the text received so far.
        assert seg.buffered_chars <= config["max_chars"] + 3 + 2 * longest_space + 1


@for_any_config(st.lists(split_text(any_text), min_size=1, max_size=3))
def test_each_flush_starts_an_independent_utterance(utterances: list[Split], config: dict) -> None:
    seg = SentenceSegmenter(**config)
    for text, deltas in utterances:
        assert utterance(seg, deltas) == run(config, [text])


@for_any_config(split_text(any_text), st.integers(min_value=0, max_value=30))
def test_reset_forgets_everything_before_it(case: Split, garbage_len: int, config: dict) -> None:
    text, deltas = case
    seg = SentenceSegmenter(**config)
    seg.feed("Unfinished words, " * garbage_len + "and 3.")
    seg.reset()
    assert seg.buffered_chars == 0
    assert utterance(seg, deltas) == run(config, [text])

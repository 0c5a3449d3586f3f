"""Code and science forms (text/normalize/en/technical.py and the power, superscript,
comparison and multiply rules): read as a developer or a scientist says them, and not where
the same characters mean something else."""

from __future__ import annotations

import re

import pytest

from devkit.speech_corpus import load_frontend
from kokoro_server.text.phonemes import Phonemizer


@pytest.fixture(scope="module")
def frontend():
    return load_frontend()


def _normalized(frontend, text: str, voice: str = "af_heart") -> str:
    """What the front end says, spaces before punctuation folded ("Settings , then")."""
    return re.sub(r"\s+([,.;:!?])", r"\1", frontend(text, voice).normalized)


def _reads(cases: list[tuple[str, str]]):
    """A test that the front end says each text as expected."""

    @pytest.mark.parametrize(("text", "expected"), cases)
    def test(frontend, text: str, expected: str) -> None:
        assert _normalized(frontend, text) == expected

    return test


def _word_phonemes(frontend, text: str, word: str) -> str:
    return next(w.phonemes.strip(" .,") for w in frontend(text, "af_heart").words if w.text == word)


test_e_notation_is_read_off_the_screen = _reads(
    [
        ("The run took 1.5e6 steps.", "The run took one point five E six steps."),
        ("Set it to 3e-4 first.", "Set it to three E minus four first."),
        ("The result, 7.2E+5, is big.", "The result, seven point two E plus five, is big."),
        ("Light travels 3e8 m/s.", "Light travels three E eight meters per second."),
        ("It is -1.5e-3 exactly.", "It is minus one point five E minus three exactly."),
    ]
)


@pytest.mark.parametrize(
    "text",
    [
        "Commit 3e4f1a2 fixed it.",  # a hash: the form does not end at a word's end
        "Revert ab1e5 today.",  # inside a word
    ],
)
def test_e_notation_does_not_claim_hashes_or_words(frontend, text):
    assert " E " not in _normalized(frontend, text)


test_powers_are_read_as_exponents = _reads(
    [
        (
            "Avogadro's number is about 6.02 × 10²³.",
            "Avogadro's number is about six point zero two times ten to the twenty-third.",
        ),
        ("The tolerance is 10⁻³ here.", "The tolerance is ten to the minus three here."),
        (
            "It weighs 5.97 × 10^24 kg.",
            "It weighs five point nine seven times ten to the twenty-fourth kilograms.",
        ),
        (
            "It holds 2.5 × 10⁻⁶ mol/L.",
            "It holds two point five times ten to the minus six moles per liter.",
        ),
        ("That is 3 × 10⁸ m/s.", "That is three times ten to the eighth meters per second."),
        ("It holds 2^16 values.", "It holds two to the sixteenth values."),
        ("Store 10^-3 there.", "Store ten to the minus three there."),
        ("Here n = 2³ = 8.", "Here n equals two cubed equals eight."),
        ("The value is x⁻¹.", "The value is x to the minus one."),
        ("So x² + y⁴ is positive.", "So x squared plus y to the fourth is positive."),
    ]
)


def test_a_footnote_mark_after_a_word_is_not_an_exponent(frontend):
    assert "to the" not in _normalized(frontend, "As reported¹, it works.")


def test_a_squared_unit_keeps_its_own_reading(frontend):
    assert _normalized(frontend, "The flat is 65 m².") == "The flat is sixty-five square meters."


test_code_operators_are_said_by_their_names = _reads(
    [
        ("In Python, use != to check.", "In Python, use not equals to check."),
        (
            "Use === instead of == here.",
            "Use triple equals instead of double equals here.",
        ),
        ("Check if (user != null) first.", "Check if (user not equals null) first."),
        ("It is true if a !== b holds.", "It is true if A strict not equals b holds."),
        ("The condition a && b is true.", "The condition A and b is true."),
        ("It passes if x || y is truthy.", "It passes if x or y is truthy."),
        ("In Bash, && runs the next one.", "In Bash, double ampersand runs the next one."),
        ("The || operator is lazy.", "The double pipe operator is lazy."),
        ("Write count += 1 to add.", "Write count plus equals one to add."),
        ("Use total -= discount now.", "Use total minus equals discount now."),
        ("In Go, := declares it.", "In Go, colon equals declares it."),
        ("The <=> operator compares.", "The spaceship operator compares."),
        ("Use i++ or --j in the loop code.", "Use i plus plus or minus minus j in the loop code."),
        ("Use ! to negate a condition.", "Use exclamation point to negate a condition."),
        ("Write !isReady instead.", "Write not isReady instead."),
        ("If status != 200, retry.", "If status not equals two hundred, retry."),
        ("It doubles: x * 2 in code.", "It doubles: x times two in code."),
    ]
)


test_arrows_are_arrows_in_code_and_steps_in_prose = _reads(
    [
        ("In Python, the -> marks the return type.", "In Python, the arrow marks the return type."),
        ("Haskell writes Int -> Int.", "Haskell writes Int arrow Int."),
        ("In PHP, => maps a key.", "In PHP, fat arrow maps a key."),
        ("Lambdas look like x => x + 1.", "Lambdas look like x fat arrow x plus one."),
        # Prose: the arrow is a step, as "→" is.
        ("Go to Settings -> Privacy -> Location.", "Go to Settings, then Privacy, then Location."),
    ]
)


@pytest.mark.parametrize(
    "text",
    [
        "Wow! That is great!",  # an exclamation, not an operator
        "I was tired--really tired.",  # a dash written as two hyphens
        "Check code == 007 first.",  # a leading zero: still a code
    ],
)
def test_prose_punctuation_is_not_an_operator(frontend, text):
    said = _normalized(frontend, text)
    assert "not " not in said and "minus" not in said and "exclamation" not in said
    assert "seven" not in said or "zero zero seven" in said


def test_a_variable_a_is_the_letter_and_an_article_stays_an_article(frontend):
    letter_a = Phonemizer("en-us")("A").strip()
    assert _word_phonemes(frontend, "Note that a ≠ 0 in the formula.", "a") == letter_a
    assert _word_phonemes(frontend, "The condition a && b is true.", "a") == letter_a
    assert _word_phonemes(frontend, "If a > b, swap them.", "a") == letter_a
    # "a > 50% chance": the article before a comparison, and no "is" after it.
    text = "There's a > 50% chance of rain."
    assert _word_phonemes(frontend, text, "a") != letter_a
    assert _normalized(frontend, text) == "There's a greater than fifty percent chance of rain."


def test_initials_joined_by_an_ampersand_are_spelled(frontend):
    letter_a = Phonemizer("en-us")("A").strip()
    assert _normalized(frontend, "AT&T and S&P agreed.") == "A T and T and S and P agreed."
    assert _word_phonemes(frontend, "AT&T agreed.", "AT&T").split()[0] == letter_a
    assert _normalized(frontend, "Salt & pepper.") == "Salt and pepper."


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("Buy 2 × 16 oz jars.", "two times sixteen"),  # a count of things weighed
        ("A 4 × 6 m room.", "four by six"),  # a size in lengths
        ("A 4 × 6 grid.", "four by six"),
    ],
)
def test_multiplication_is_by_for_sizes_and_times_for_counts(frontend, text, product):
    assert product in _normalized(frontend, text)


def test_the_british_voice_says_exclamation_mark(frontend):
    said = _normalized(frontend, "Use ! to negate a condition.", "bf_emma")
    assert said == "Use exclamation mark to negate a condition."


test_a_signed_exponent_after_a_letter_is_one_power = _reads(
    [
        ("The answer is a^-1.", "The answer is A to the minus one."),
        (
            "Remember that x^-2 shrinks quickly.",
            "Remember that x to the minus two shrinks quickly.",
        ),
        ("Then (a + b)^2 expands.", "Then (A plus b) squared expands."),
        ("It grows as n^10 here.", "It grows as n to the tenth here."),
    ]
)


def test_a_variable_a_with_an_exponent_is_the_letter(frontend):
    letter_a = Phonemizer("en-us")("A").strip()
    assert _word_phonemes(frontend, "The answer is a^-1.", "a^-1.").split()[0] == letter_a
    assert _word_phonemes(frontend, "So a² is positive.", "a²").split()[0] == letter_a
    assert _word_phonemes(frontend, "Then (a+b)^2 expands.", "(a+b)^2").split()[0] == "(" + letter_a
    # The article before a word stays the article.
    assert _word_phonemes(frontend, "It is a bit^2 odd.", "a") != letter_a


test_big_o_is_read_term_by_term = _reads(
    [
        ("Lookups are O(1) on average.", "Lookups are O of one on average."),
        ("Binary search runs in O(log n) time.", "Binary search runs in O of log n time."),
        ("Sorting is O(n log n).", "Sorting is O of n log n."),
        ("Naive is O(n^2) or O(n²).", "Naive is O of n squared or O of n squared."),
        (
            "Brute force is O(2^n) or O(n!).",
            "Brute force is O of two to the n or O of n factorial.",
        ),
    ]
)


test_a_function_of_one_letter_is_read_of = _reads(
    [
        ("f(x) = 10x + 12 is a line.", "f of x equals ten x plus twelve is a line."),
        ("Then g(2) = 5 holds.", "Then g of two equals five holds."),
        ("Plot f(x, y) now.", "Plot f of x and y now."),
        ("Here P(A) is small.", "Here P of A is small."),
    ]
)


@pytest.mark.parametrize(
    "text",
    [
        "See clause B(2) for details.",  # a capital before a number numbers a clause
        "The plural is item(s) here.",  # part of a word
        "Call print(x) to show it.",  # a function with a longer name is code, said as written
        "Pick a(n) option.",  # the article written for "a" and "an"
    ],
)
def test_a_bracket_after_a_word_or_a_numbered_clause_is_not_of(frontend, text):
    assert " of " not in _normalized(frontend, text)


test_two_letters_joined_by_a_slash_are_both_said = _reads(
    [
        ("We're running an A/B test.", "We're running an A B test."),
        ("The job is I/O bound.", "The job is I O bound."),
    ]
)


def test_a_b_test_says_the_letter_a(frontend):
    letter_a = Phonemizer("en-us")("A").strip()
    assert _word_phonemes(frontend, "A/B testing won.", "A/B").split()[0] == letter_a


@pytest.mark.parametrize(
    "text",
    [
        "Sizes S/M/L are in stock.",  # a chain of sizes, not a pair
        "It runs 24/7 here.",  # numbers
        "Read the TCP/IP docs.",  # words, not single letters
    ],
)
def test_a_slash_between_longer_forms_is_not_a_letter_pair(frontend, text):
    said = _normalized(frontend, text)
    assert not re.search(r"\b(?:S M|T C P I P)\b", said)
    assert "/" in said or "seven" in said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use the * wildcard to match any file.", "Use the asterisk wildcard to match any file."),
        ("Type * to match everything.", "Type asterisk to match everything."),
        ("Press * then the pound key.", "Press asterisk then the pound key."),
        ("Compute 3 * 4 first.", "Compute three times four first."),
        ("Write x => x * 2 to double it.", "Write x fat arrow x times two to double it."),
    ],
)
def test_a_lone_asterisk_multiplies_between_operands_and_is_named_otherwise(
    frontend, text, expected
):
    assert _normalized(frontend, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Map it with (a, b) -> a + b here.", "arrow A plus b"),
        ("Write x => x * 2 to double it.", "x fat arrow x"),
    ],
)
def test_an_arrow_after_lambda_parameters_is_code(frontend, text, expected):
    assert expected in _normalized(frontend, text)


def test_an_arrow_after_a_word_in_prose_is_still_a_step(frontend):
    assert _normalized(frontend, "Input -> output.") == "Input, then output."

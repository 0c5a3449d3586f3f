"""What assistants write about code and science, read as a person says it: scientific
notation and exponents, programming operators.

These rules run early among the English rules (rules.py places them after e-mail, URLs,
IP addresses and key combinations), before numbers, versions, comparisons and symbols can
claim the pieces of a form they do not understand.

- `1.5e6`, `3e-4`, `7.2E+5`: "one point five E six", "three E minus four" (what a developer
  reads off the screen); `6.02 × 10²³`, `10⁻³`, `10^24 kg`: "ten to the twenty-third", "ten to
  the minus three", "ten to the twenty-fourth kilograms" (squared and cubed for 2 and 3).
- Operators that only code writes (`!=`, `==`, `===`, `!==`, `&&`, `||`, `+=`, `:=`) are said
  by the names developers use; `a && b` is "A and B", the `&&` named on its own "double
  ampersand". The arrows `->` and `=>` are "arrow" and "fat arrow" in a sentence about code,
  and ", then" in prose ("Settings -> Privacy"), as `→` is.
- `x^-2` is "x to the minus two"; `O(n log n)` "O of n log n"; `f(x)` "f of x"; `A/B`
  "A B"; a lone `*` is "times" between operands ("x * 2") and "asterisk" when named.
- A lone "a" that is an operand (`a ≠ 0`, `a && b`, `a^-1`) is the letter, not the article.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kokoro_server.text.normalize.core import END, START, Rule, rule
from kokoro_server.text.normalize.en import verbalize as v
from kokoro_server.text.normalize.en.tables import POWERS, UNITS

_NUMBER = r"\d+(?:\.\d+)?"
_SUPERSCRIPT_DIGITS = "".join(k for k, d in POWERS.items() if d.isdigit())

# Units after a power of ten or a number in E notation ("10⁻⁶ mol/L"); a lone "A" or an
# inch mark there is more likely a letter or a quote.
_SCIENCE_UNITS = {"mol": ("mole", "moles"), "mmol": ("millimole", "millimoles")}
_AFTER_POWER_UNITS = {k: u for k, u in UNITS.items() if k not in ('"', "″", "A")}
_AFTER_POWER_UNITS |= _SCIENCE_UNITS
_UNIT = "|".join(re.escape(k) for k in sorted(_AFTER_POWER_UNITS, key=len, reverse=True))
_UNIT_AFTER = r"(?:\s(?P<unit>(?:" + _UNIT + r")(?:/(?:" + _UNIT + r"))?)(?![\w/]))?"


# Units a size is measured in: "4 × 6 m" is "four by six meters", "2 × 16 oz" a product.
LENGTH_UNITS = frozenset(
    {"mm", "cm", "m", "km", "nm", "µm", "in.", '"', "″", "ft", "yd", "mi", "m²", "cm²", "ft²"}
)


def say_exponent(exponent: str) -> str:
    """What follows the base: '2' -> 'squared', '23' -> 'to the twenty-third', '-3' -> 'to
    the minus three', 't' -> 'to the t'."""
    exponent = exponent.replace("−", "-").lstrip("+")
    if exponent == "2":
        return "squared"
    if exponent == "3":
        return "cubed"
    if exponent.isdigit():
        return "to the " + v.ordinal(int(exponent))
    if exponent.startswith("-") and exponent[1:].isdigit():
        return "to the minus " + v.cardinal(exponent[1:])
    return "to the " + ("A" if exponent == "a" else exponent)


def superscript_exponent(written: str) -> str:
    """'²³' -> '23', '⁻⁶' -> '-6'."""
    return "".join(POWERS[c] for c in written)


def _say_unit(unit: str | None) -> str:
    """'kg' -> ' kilograms', 'mol/L' -> ' moles per liter': a measure of many."""
    if not unit:
        return ""
    top, _, bottom = unit.partition("/")
    said = " " + _AFTER_POWER_UNITS[top][1]
    return said + (" per " + _AFTER_POWER_UNITS[bottom][0] if bottom else "")


def _say_e_notation(m: re.Match[str], british: bool) -> str:
    sign = {"-": "minus ", "−": "minus ", "+": "plus ", "": ""}[m["sign"]]
    said = f"{v.cardinal(m['m'], british)} E {sign}{v.cardinal(m['e'], british)}"
    return ("minus " if m["neg"] else "") + said + _say_unit(m["unit"])


def _say_number_power(m: re.Match[str], british: bool) -> str:
    exponent = m["caret"] or superscript_exponent(m["sup"])
    return f"{v.cardinal(m['base'], british)} {say_exponent(exponent)}{_say_unit(m['unit'])}"


# ---- operators -------------------------------------------------------------------------

# Said the same wherever they stand: as an operator ("x != y") or named ("use != to").
_OPERATOR_NAMES = {
    "!==": "strict not equals", "===": "triple equals", "!=": "not equals",
    "==": "double equals", "+=": "plus equals", "-=": "minus equals", "*=": "times equals",
    "/=": "divide equals", "%=": "mod equals", ":=": "colon equals", "<=>": "spaceship",
}  # fmt: skip
# Logical operators: the word between operands ("a && b"), the symbol's name on its own.
_LOGICAL = {"&&": ("and", "double ampersand"), "||": ("or", "double pipe")}
_OPERATOR = r"(?<![=!<>&|:+*/%^-])(?:!==|===|<=>|!=|==|&&|\|\||[-+*/%:]=)(?![=&|>])"

# Words that cannot be an operand next to an operator: the symbol is being named. Not "a":
# before an operator it is a variable ("a && b").
_NOT_BEFORE = {
    "use", "uses", "using", "used", "the", "an", "of", "with", "and", "or", "like",
    "than", "confuse", "write", "writes", "type", "typing", "is", "are", "not", "its",
    "single", "double", "triple", "between", "means", "mean", "called", "as",
    "press", "hit", "tap", "dial", "enter", "add", "insert", "put", "this", "that", "each",
}  # fmt: skip
_NOT_AFTER = {
    "to", "in", "for", "with", "as", "on", "at", "of", "is", "are", "was", "means",
    "operator", "operators", "sign", "symbol", "runs", "checks", "calls", "maps", "points",
    "declares", "compares", "returns", "works", "does", "instead", "rather", "here", "there",
}  # fmt: skip
_WORD_BEFORE = re.compile(r"([\w.]+)\s*$")
_WORD_AFTER = re.compile(r"\s*([\w.]+)")

# A sentence about code: a language or a word only code talk uses (for the arrows, which
# prose also writes), or an operator only code writes.
_CODE_SENTENCE = re.compile(
    r"(?<![\w#+])(?:python|javascript|typescript|node(?:\.js)?|php|perl|ruby|rust|golang"
    r"|java|kotlin|swift|scala|haskell|elixir|erlang|ocaml|clojure|lua|dart|julia|bash"
    r"|zsh|shell|powershell|sql|c#|c\+\+|f#|lambdas?|functions?|methods?|operators?"
    r"|variables?|expressions?|syntax|code|pointers?|structs?|closures?|callbacks?"
    r"|boolean|conditions?|conditional|loops?|statements?|compilers?|arguments?"
    r"|parameters?|type\s+(?:hints?|signatures?|annotations?)|return\s+(?:type|value)"
    r"|signatures?|negate|null|nullptr|int|str|bool)(?![\w#+])"
    r"|!==|===|!=|==|&&|\|\||[-+*/:]=|\+\+",
    re.IGNORECASE,
)


@lru_cache(maxsize=16)
def _about_code(sentence: str) -> bool:
    return _CODE_SENTENCE.search(sentence) is not None


def _operand_before(m: re.Match[str]) -> bool:
    text = m.string[max(0, m.start() - 40) : m.start()].rstrip()
    if not text or not (text[-1].isalnum() or text[-1] in "_)]\"'"):
        return False
    word = _WORD_BEFORE.search(text)
    return not (word and word[1].lower() in _NOT_BEFORE)


def _operand_after(m: re.Match[str]) -> bool:
    text = m.string[m.end() : m.end() + 40].lstrip()
    if not text or not (text[0].isalnum() or text[0] in "_([\"'!-"):
        return False
    word = _WORD_AFTER.match(text)
    return not (word and word[1].lower() in _NOT_AFTER)


def _say_operator(m: re.Match[str]) -> str:
    operator = m[0]
    if operator in _LOGICAL:
        between, named = _LOGICAL[operator]
        said = between if _operand_before(m) and _operand_after(m) else named
    else:
        said = _OPERATOR_NAMES[operator]
    return f" {said} "


# What comes before a lambda's arrow: one lower-case letter or a bracketed parameter list,
# "x => x * 2", "(a, b) -> a + b"; prose steps between arrows are words ("Settings").
_LAMBDA_PARAMETERS = re.compile(
    r"(?:(?<![\w'’.-])[a-z]|\(\s*(?:[A-Za-z_]\w*\s*(?:,\s*[A-Za-z_]\w*\s*)*)?\))\s*$"
)


def _say_arrow(m: re.Match[str]) -> str:
    arrow = m[0].strip()
    before = m.string[max(0, m.start() - 40) : m.start()]
    if not _about_code(m.string) and not _LAMBDA_PARAMETERS.search(before):
        return ", then "
    return " arrow " if arrow == "->" else " fat arrow "


def _say_asterisk(m: re.Match[str]) -> str:
    """A lone '*' between operands multiplies ("x * 2"); named, it is the character ("use
    the * wildcard", "type * to match")."""
    return " times " if _operand_before(m) and _operand_after(m) else " asterisk "


def _say_bang(m: re.Match[str], british: bool) -> str | None:
    """A lone '!' named in a sentence about code: 'use ! to negate'."""
    if not _about_code(m.string):
        return None
    return " exclamation mark " if british else " exclamation point "


# A lone "a" next to an operator is a variable ("a ≠ 0", "a && b", "b == a.", "a^2",
# "(a+b)"); before a comparison it may be the article ("a > 50% chance"), so there what
# follows the other operand must end the expression: punctuation, another operator or a
# joining word.
_RELATION = r"(?:=|≠|!==?|===?|&&|\|\||[-+*/:]=|\+\s|\*\s|->|=>)"
_COMPARISON = r"[<>≤≥]=?"
_EXPRESSION_ENDS = (
    r"\s*(?:[.,;:!?)\]]|$|" + _RELATION + "|" + _COMPARISON
    + r"|(?:and|or|then|in|is|for|here|so|but|when)\b)"
)  # fmt: skip
_VARIABLE_A = (
    r"(?<![\w'’.-])a(?=\s?" + _RELATION + r"|[\^⁰¹²³⁴-⁹⁻⁺]|[+*/=][\w(])"
    r"|(?<![\w'’.-])a(?=\s?" + _COMPARISON + r"\s?[\w.−-]+" + _EXPRESSION_ENDS + ")"
    r"|(?<=[=≠<>≤≥&|]\s)a(?=\s*(?:[.,;:!?)\]]|$))"
)  # fmt: skip
_VARIABLE_A_AT = re.compile(_VARIABLE_A)
_ARTICLE_END = re.compile(r"(?<![\w'’.-])(an?|the)\s*$", re.IGNORECASE)


def article_before(m: re.Match[str]) -> bool:
    """The word just before the match is an article, not an operand: "a > 50% chance" is
    "a greater than fifty percent chance", where "a > b" is "A is greater than B"."""
    found = _ARTICLE_END.search(m.string, max(0, m.start() - 8), m.start())
    if not found:
        return False
    return found[1].lower() != "a" or _VARIABLE_A_AT.match(m.string, found.start(1)) is None


def _letter(written: str) -> str:
    """A variable said as its letter: "a" is "A", never the article."""
    return "A" if written == "a" else written


# The inside of big-O notation, said term by term: "n log n", "n^2" -> "n squared".
_BIG_O_TERM = re.compile(
    r"\^(?P<caret>[-−+]?\w{1,8})|(?P<sup>[⁻⁺]?[" + _SUPERSCRIPT_DIGITS + r"]{1,3})"
    r"|(?P<n>" + _NUMBER + r")|(?P<op>[*·×+/!-])"
)
_BIG_O_OPERATORS = {"*": "times", "·": "times", "×": "times", "+": "plus", "/": "over",
                    "!": "factorial", "-": "minus"}  # fmt: skip


def _say_big_o(m: re.Match[str], british: bool) -> str:
    def term(t: re.Match[str]) -> str:
        if t["caret"]:
            return " " + say_exponent(t["caret"])
        if t["sup"]:
            return " " + say_exponent(superscript_exponent(t["sup"]))
        if t["n"]:
            return f" {v.cardinal(t['n'], british)} "
        return f" {_BIG_O_OPERATORS[t['op']]} "

    inside = " ".join(_BIG_O_TERM.sub(term, m["x"]).split())
    return f"O of {inside}"


# A function of one letter applied to letters or small numbers: "f(x)", "g(2)", "P(A)" and
# "f(x, y)" are "f of x". A capital takes letters only: "B(2)" may number a clause; "a(n)"
# is the article written for either spelling.
_FUNCTION = (
    r"(?<![\w'’.-])(?:(?P<f>[b-z])\((?P<args>(?:[a-z]|\d{1,3})(?:,\s?(?:[a-z]|\d{1,3})){0,3})\)"
    r"|(?P<F>[A-Z])\((?P<ARGS>[A-Za-z](?:,\s?[A-Za-z]){0,3})\))(?![\w(])"
)


def _say_function(m: re.Match[str], british: bool) -> str:
    args = [a.strip() for a in (m["args"] or m["ARGS"]).split(",")]
    said = [v.cardinal(a, british) if a.isdigit() else _letter(a) for a in args]
    return f"{_letter(m['f'] or m['F'])} of {' and '.join(said)}"


# Two capital letters joined by a slash are both said: "A/B test", "I/O", "P/E ratio".
_LETTER_PAIR = r"(?<![\w/])(?P<a>[A-Z])/(?P<b>[A-Z])(?![\w/])"

# Initials joined by "&" are spelled: "AT&T" is "A T and T", as "R&D" is "R and D".
_INITIALS = r"(?P<a>[A-Z]{1,3})&(?P<b>[A-Z]{1,3})"


def _say_initials(m: re.Match[str]) -> str | None:
    if len(m["a"]) == 1 and len(m["b"]) == 1:
        return None  # "R&D": the general ampersand rule says it the same way
    return " ".join(m["a"]) + " and " + " ".join(m["b"])


def technical_rules(british: bool) -> tuple[Rule, ...]:
    """The rules of this module, in order, for one English variant."""
    return (*_notation_rules(british), *_code_rules(british))


def _notation_rules(british: bool) -> tuple[Rule, ...]:
    """Scientific notation, powers, big O, functions and letter pairs."""
    return (
        rule(
            "e-notation",
            r"(?P<neg>[-−])?(?P<m>"
            + _NUMBER
            + r")[eE](?P<sign>[-−+]?)(?P<e>\d{1,3})"
            + _UNIT_AFTER,
            lambda m: _say_e_notation(m, british),
        ),
        rule(
            "number-power",
            r"(?P<base>"
            + _NUMBER
            + r")(?:\^(?P<caret>[-−+]?\d{1,3})|(?P<sup>[⁻⁺]?["
            + _SUPERSCRIPT_DIGITS
            + r"]{1,3}))"
            + _UNIT_AFTER,
            lambda m: _say_number_power(m, british),
        ),
        rule("big-o", r"O\((?P<x>[^()]{1,40})\)", lambda m: _say_big_o(m, british)),
        # After a letter or a bracket, before the numbers rule can take a signed exponent.
        rule(
            "caret-power",
            r"(?<=[A-Za-z)\]])\^(?P<e>[-−+]?\d{1,3})(?!\d)",
            lambda m: " " + say_exponent(m["e"]),
            bounded=False,
        ),
        rule("function-of", _FUNCTION, lambda m: _say_function(m, british), bounded=False),
        rule("letter-pair", _LETTER_PAIR, lambda m: f"{m['a']} {m['b']}", bounded=False),
    )


def _code_rules(british: bool) -> tuple[Rule, ...]:
    """Operators, arrows and the signs that only code writes."""
    return (
        rule("code-operator", _OPERATOR, _say_operator, bounded=False),
        # A number compared in code is a value ("status != 200"), not a code read digit by
        # digit (a leading zero still is one).
        rule(
            "compared-number",
            r"(?<=[!=<>]=\s)[1-9]\d{2,14}|(?<=[!=<>]=)[1-9]\d{2,14}",
            lambda m: v.cardinal(m[0], british),
        ),
        rule(
            "arrow",
            r"\s?(?<![-=<>!])(?:->|=>)(?![>=])\s?",
            _say_arrow,
            bounded=False,
        ),
        # Increment and decrement: "i++", "++count"; "--" only in code (prose writes a dash).
        rule(
            "increment",
            r"(?<=[a-z_)\]])\+\+(?![\w+])|(?<![\w+])\+\+(?=[a-z_])",
            lambda m: " plus plus ",
            bounded=False,
        ),
        rule(
            "decrement",
            r"(?<=[a-z_)\]])--(?![\w-])|(?<![\w-])--(?=[a-z_])",
            lambda m: " minus minus " if _about_code(m.string) else None,
            bounded=False,
        ),
        rule("not-prefix", r"(?<![\w)\]!])!(?=[A-Za-z_(])", lambda m: "not ", bounded=False),
        rule(
            "bang",
            r"(?<!\S)!(?!\S)",
            lambda m: _say_bang(m, british),
            bounded=False,
        ),
        rule("asterisk", r"(?<!\S)\*(?!\S)", _say_asterisk, bounded=False),
        rule("variable-a", _VARIABLE_A, lambda m: "A", bounded=False),
        rule("initials-ampersand", _INITIALS, _say_initials),
    )


__all__ = [
    "END",
    "LENGTH_UNITS",
    "START",
    "article_before",
    "say_exponent",
    "superscript_exponent",
    "technical_rules",
]

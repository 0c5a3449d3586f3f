"""CloudWatch Logs JSON filter patterns, evaluated here so the stacks' metric filters can be run
over real log lines without an AWS account.

Implements the JSON-event part of "Filter pattern syntax for metric filters, subscription
filters, filter log events, and Live Tail" in the CloudWatch Logs User Guide
(https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html; the
text of the archived guide, awsdocs/amazon-cloudwatch-logs-user-guide,
doc_source/FilterAndPatternSyntax.md, "Matching Terms in JSON Log Events"):

- `{ EXPRESSION }`; conditions joined by `&&` and `||`, parentheses, precedence () > && > ||;
- selectors `$.a.b`, `$.list[0]`, `$.grid[0][1]` (names of letters, digits, `-` and `_`);
- `=` / `!=` with a string, quoted or not, `*` a wildcard at its start or end only ("Ev*ent
  will only match the actual string Ev*ent"); a selector on an array or object matches
  neither `=` nor `!=`;
- `=`, `!=`, `<`, `>`, `<=`, `>=` with a number (sign, decimals, exponent);
- `IS NULL`, `IS TRUE`, `IS FALSE`, `NOT EXISTS`.

Where the page is silent this evaluator takes the narrow reading, so a pattern that passes
here does not rely on an unspecified case: a comparison on a missing field is false (for
`!=` too), numbers compare with JSON numbers only (never strings, booleans or null), and
strings with JSON strings only. Anything else (term and space-delimited patterns, regular
expressions, IN lists) is refused with ValueError rather than guessed at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<paren>[()])
      | (?P<logic>&&|\|\|)
      | (?P<op><=|>=|!=|=|<|>)
      | (?P<selector>\$(?:\.[A-Za-z0-9_-]+|\[\d+\])*)
      | (?P<quoted>"(?:[^"\\]|\\.)*")
      | (?P<word>[^\s()&|"=<>!]+)
    )""",
    re.VERBOSE,
)
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_PATH_PART = re.compile(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]")
_MISSING = object()

Event = Any  # a decoded JSON log event
Condition = Callable[[Event], bool]


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str


def _tokens(expression: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(expression):
        if not expression[pos:].strip():
            break
        match = _TOKEN.match(expression, pos)
        if match is None or match.end() == pos:
            raise ValueError(f"unsupported filter syntax at {expression[pos:]!r}")
        kind = match.lastgroup
        assert kind is not None
        out.append(_Tok(kind, match.group(kind)))
        pos = match.end()
    return out


def select(event: Event, selector: str) -> Any:
    """The value a selector points to, or _MISSING."""
    value = event
    for name, index in _PATH_PART.findall(selector[1:]):
        if name:
            if not isinstance(value, dict) or name not in value:
                return _MISSING
            value = value[name]
        else:
            if not isinstance(value, list) or int(index) >= len(value):
                return _MISSING
            value = value[int(index)]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _wildcard(pattern: str) -> re.Pattern[str]:
    head = pattern.startswith("*")
    tail = pattern.endswith("*") and len(pattern) > 1
    core = pattern[1 if head else 0 : len(pattern) - 1 if tail else len(pattern)]
    return re.compile(("(?s).*" if head else "") + re.escape(core) + (".*" if tail else ""))


def _compare(selector: str, op: str, operand: _Tok) -> Condition:
    if operand.kind == "word" and operand.text.startswith("%"):
        raise ValueError(f"regular expressions are not supported: {operand.text!r}")
    if operand.kind == "word" and _NUMBER.match(operand.text):
        number = float(operand.text)
        numeric = {
            "=": lambda v: v == number,
            "!=": lambda v: v != number,
            "<": lambda v: v < number,
            ">": lambda v: v > number,
            "<=": lambda v: v <= number,
            ">=": lambda v: v >= number,
        }[op]
        return lambda event: _is_number(v := select(event, selector)) and numeric(v)
    if op not in ("=", "!="):
        raise ValueError(f"{op} needs a number, got {operand.text!r}")
    text = json.loads(operand.text) if operand.kind == "quoted" else operand.text
    matcher = _wildcard(text)
    want = op == "="
    return lambda event: (
        isinstance(v := select(event, selector), str) and (bool(matcher.fullmatch(v)) == want)
    )


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> _Tok:
        token = self.peek()
        if token is None:
            raise ValueError("filter pattern ends too early")
        self.pos += 1
        return token

    def either(self) -> Condition:
        return self.joined("||", self.both, any)

    def both(self) -> Condition:
        return self.joined("&&", self.unit, all)

    def joined(
        self, operator: str, term: Callable[[], Condition], combine: Callable[[Any], bool]
    ) -> Condition:
        """Terms parsed by `term`, separated by `operator`, combined by any() or all()."""
        terms = [term()]
        while (token := self.peek()) is not None and token.text == operator:
            self.take()
            terms.append(term())
        return lambda event: combine(t(event) for t in terms)

    def unit(self) -> Condition:
        token = self.take()
        if token.text == "(":
            inner = self.either()
            if self.take().text != ")":
                raise ValueError("unbalanced parentheses")
            return inner
        if token.kind != "selector":
            raise ValueError(f"expected a $. selector, got {token.text!r}")
        return self.condition(token.text)

    def condition(self, selector: str) -> Condition:
        token = self.take()
        if token.kind == "op":
            return _compare(selector, token.text, self.take())
        words = (token.text, self.take().text)
        checks: dict[tuple[str, str], Condition] = {
            ("IS", "NULL"): lambda e: select(e, selector) is None,
            ("IS", "TRUE"): lambda e: select(e, selector) is True,
            ("IS", "FALSE"): lambda e: select(e, selector) is False,
            ("NOT", "EXISTS"): lambda e: select(e, selector) is _MISSING,
        }
        if words not in checks:
            raise ValueError(f"unsupported condition {' '.join(words)!r} on {selector}")
        return checks[words]


def compile_pattern(pattern: str) -> Condition:
    """A JSON filter pattern as a predicate on decoded JSON events."""
    text = pattern.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"only JSON patterns ({{ ... }}) are supported, got {pattern!r}")
    parser = _Parser(_tokens(text[1:-1]))
    condition = parser.either()
    if parser.peek() is not None:
        raise ValueError(f"unexpected {parser.peek()!r} in {pattern!r}")
    return condition


def matches(pattern: str, line: str) -> bool:
    """Whether one log event (a line of text) matches; a line that is not JSON never does."""
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return compile_pattern(pattern)(event)


def metric_value(value: str, line: str) -> float | None:
    """What a metric filter publishes for a matching event: the number at `$.field`, or the
    constant. None where the field holds no number (nothing is published)."""
    if not value.startswith("$"):
        return float(value)
    found = select(json.loads(line), value)
    return float(found) if _is_number(found) else None

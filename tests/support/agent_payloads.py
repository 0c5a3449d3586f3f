"""Hypothesis strategies for agent invocation payloads, each with the answer it must get.

A Case is either raw bytes that are not a JSON value at all (the SDK answers HTTP 400 on
/invocations; /ws answers a `bad_request` event) or a JSON value with exactly one defect,
whose `bad_request` message must name it (`needle`), or a valid invocation (needle None).
The oracle is written here from the payload contract (docs/agent.md), not from the parser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from voice_agent.payload import FORMATS

MAX_PROMPT_CHARS = 8000  # docs/agent.md
MAX_ERROR_CHARS = 400  # an error quotes an excerpt of what it refuses, never all of it


@dataclass(frozen=True)
class Case:
    body: bytes
    needle: str | None  # substring of the bad_request message; None: valid
    not_json: bool = False  # the body is not a JSON value at all

    @property
    def valid(self) -> bool:
        return self.needle is None and not self.not_json


def _dump(value: Any) -> bytes:
    return json.dumps(value).encode()


_texts = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=40
).filter(lambda s: s.strip())
_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _texts)
_json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


_deep_values = st.integers(1, 400).map(_nested)  # deep, but within what json can decode

valid_payloads = st.fixed_dictionaries(
    {"prompt": _texts},
    optional={
        "mode": st.sampled_from(["stream", "batch"]),
        "format": st.just("pcm"),
        "voice": st.sampled_from(["af_heart", "am_adam"]),
    },
)


def _with(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**base, **changes}


def _one_defect(base: dict[str, Any]) -> st.SearchStrategy[Case]:
    not_str = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.lists(_scalars))
    without_prompt = {k: v for k, v in base.items() if k != "prompt"}
    blank = st.sampled_from(["", " ", "\n\t", "\u3000"])
    defects = st.one_of(
        st.builds(lambda v: (_with(base, prompt=v), "'prompt'"), not_str | blank | _deep_values),
        st.just((without_prompt, "'prompt' is required")),
        st.integers(MAX_PROMPT_CHARS + 1, 200_000).map(
            lambda n: (_with(base, prompt="a" * n), "the limit is")
        ),
        st.builds(
            lambda pre: (_with(base, prompt=pre + "\ud800"), "unpaired surrogate"),
            st.text(max_size=5).filter(lambda s: "\ud800" not in s and s.isascii()),
        ),
        st.builds(
            lambda v: (_with(base, mode=v), "'mode' must be one of"),
            (_json_values | _deep_values).filter(lambda v: v not in ("stream", "batch")),
        ),
        st.builds(
            lambda v: (_with(base, format=v), "'format' must be one of"),
            (_json_values | _deep_values).filter(lambda v: v not in FORMATS),
        ),
        st.builds(
            lambda v: (_with(base, voice=v), "'voice'"),
            st.one_of(st.booleans(), st.integers(), st.lists(_scalars), blank, _deep_values),
        ),
        st.builds(
            lambda k, v: (_with(base, **{k: v}), "unknown field"),
            _texts.filter(lambda k: k not in ("prompt", "mode", "voice", "format")),
            _json_values | _deep_values,
        ),
        st.builds(
            lambda v: (v, "must be a JSON object"),
            st.one_of(_scalars, st.lists(_json_values, max_size=3), st.just([base])),
        ),
    )
    return defects.map(lambda pair: Case(_dump(pair[0]), pair[1]))


@st.composite
def _huge_number(draw: st.DrawFn, base: dict[str, Any]) -> Case:
    """`speed` or `interrupted.played_ms` as a JSON number past any float, written raw:
    hundreds to thousands of digits, or an exponent. (Past Python's integer-conversion limit,
    4,300 digits, the SDK's own decoding answers HTTP 400 on /invocations while /ws answers
    `bad_request`: tests/agent/test_huge_values.py has those cases.)"""
    digits = draw(st.integers(309, 4000))
    literal = draw(
        st.sampled_from(["9" * digits, f"-{'9' * digits}", f"1{'0' * digits}.5", f"1e{digits}"])
    )
    if draw(st.booleans()):
        payload, needle = _with(base, speed="HUGE"), "'speed'"
    else:
        payload, needle = _with(base, interrupted={"played_ms": "HUGE"}), "interrupted.played_ms"
    return Case(_dump(payload).replace(b'"HUGE"', literal.encode()), needle)


def _not_json(base: dict[str, Any]) -> st.SearchStrategy[Case]:
    text = json.dumps(base).encode()
    return st.one_of(
        st.integers(0, len(text) - 1).map(lambda n: text[:n]),  # truncated
        st.binary(max_size=30).map(lambda b: b"\xff" + b),  # never UTF-8 / JSON
        st.builds(lambda n, c: c * n, st.integers(2000, 200_000), st.sampled_from([b"[", b"{"])),
        st.builds(lambda n: b"[" * n + b"]" * n, st.integers(5000, 50_000)),  # too deep
        st.just(b"{'prompt': 'single quotes'}"),
    ).map(lambda body: Case(body, None, not_json=True))


@st.composite
def cases(draw: st.DrawFn, valid_weight: int = 1) -> Case:
    base = draw(valid_payloads)
    kind = draw(st.sampled_from(["valid"] * valid_weight + ["defect"] * 3 + ["not_json"]))
    if kind == "valid":
        return Case(_dump(base), None)
    if kind == "defect":
        return draw(_one_defect(base) | _huge_number(base))
    return draw(_not_json(base))

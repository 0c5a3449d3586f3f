"""`describe_error`: an exception and its causes as a traceback would chain them, each once."""

from __future__ import annotations

import itertools

from kokoro_stream import describe_error


def raised(outer: BaseException, inner: BaseException, *, explicit: bool) -> BaseException:
    try:
        try:
            raise inner
        except BaseException as caught:
            if explicit:
                raise outer from caught
            raise outer  # noqa: B904 - the implicit context is what is tested
    except BaseException as exc:
        return exc


def test_the_direct_cause_and_the_context_are_both_followed() -> None:
    direct = raised(RuntimeError("stream failed"), OSError("reset"), explicit=True)
    during = raised(RuntimeError("stream failed"), OSError("reset"), explicit=False)
    expected = "RuntimeError: stream failed; caused by OSError: reset"
    assert describe_error(direct) == describe_error(during) == expected


def test_a_suppressed_context_is_not_a_cause_and_a_loop_ends() -> None:
    try:
        try:
            raise OSError("hidden")
        except OSError:
            raise ValueError("shown") from None
    except ValueError as exc:
        assert describe_error(exc) == "ValueError: shown"
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert describe_error(a) == "ValueError: a; caused by ValueError: b"


def test_a_long_chain_is_cut_after_max_causes() -> None:
    errors = [ValueError(str(i)) for i in range(10)]
    for outer, inner in itertools.pairwise(errors):
        outer.__cause__ = inner
    assert describe_error(errors[0], max_causes=2) == (
        "ValueError: 0; caused by ValueError: 1; caused by ValueError: 2"
    )

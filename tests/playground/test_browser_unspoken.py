"""Nothing lost silently, in a real Chromium: a sentence the voice cannot speak is named on
the page (its index and text), and a text box holding only whitespace is answered with a
message instead of being cleared without a word."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.playground import Playground, serve_playground
from tests.support.playground_page import PlaygroundPage
from tests.support.servers import ThreadedServer

pytestmark = pytest.mark.browser
# The last line has nothing a voice can say: the server reports it instead of speaking it.
ANSWER = "Here is the answer. That is all.\n⁂ ⁂"


@pytest.fixture
def stack(server: ThreadedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Playground]:
    yield from serve_playground(server.ws, [ANSWER], tmp_path_factory)


def test_whitespace_only_is_answered_not_cleared(stack: Playground, page: PlaygroundPage) -> None:
    page.open(stack.url)
    page.send("   \t ")
    assert "only whitespace" in page.wait_error(timeout_s=10)
    assert page.page.input_value("#prompt") == "   \t "
    assert page.evaluate("() => window.playground.turns.length") == 0


def test_a_sentence_that_was_not_spoken_is_named(stack: Playground, page: PlaygroundPage) -> None:
    page.open(stack.url)
    page.send("What is the answer?")
    turn = page.wait_turn(1, ("done", "playing"), timeout_s=120)
    unspoken = [e for e in turn["errors"] if e.get("fatal") is False]
    assert [(e["code"], e["index"], e["text"]) for e in unspoken] == [
        ("tts_nothing_to_say", 2, "⁂ ⁂")
    ]
    shown = page.page.locator('[data-turn="1"] .turn-error').inner_text()
    assert "Not spoken" in shown and "⁂ ⁂" in shown

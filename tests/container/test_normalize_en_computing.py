"""English rule family `computing` (text/normalize/en/families/computing.py): addresses,
key combinations, files and codes, read as a developer says them, and not where the same
characters mean something else. The science and code-operator rules it runs (technical.py)
have their own tests (test_normalize_technical.py)."""

from __future__ import annotations

import pytest

from kokoro_server.text.normalize import say
from kokoro_server.text.normalize.en.families import computing
from tests.support.normalization_table import family_test


def spoken(text: str) -> str:
    return say(text, "en-us")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Press Ctrl+C now.", "Press Control C now."),
        ("Cmd+Shift+P opens it.", "Command Shift P opens it."),
        ("ctrl+alt+del", "Control Alt Delete"),
        ("Alt+F4 closes it.", "Alt F four closes it."),
        ("Shift+Enter adds a line.", "Shift Enter adds a line."),
        ("Open your .env file.", "Open your dot env file."),
        ("Copy .env.local here.", "Copy dot env dot local here."),
        ("Edit .gitignore.", "Edit dot gitignore."),
        # Not a key combination or a dotfile: a sum, a decimal, a domain, an extension.
        ("It costs .5 more.", "It costs point five more."),
        ("Go to example.com now.", "Go to example dot com now."),
        ("Open config.json first.", "Open config dot json first."),
    ],
)
def test_keys_and_dotfiles(text, expected):
    assert spoken(text) == expected


test_the_family_says_its_forms = family_test(
    computing,
    [
        ("Email me at bob@example.com.", "Email me at bob at example dot com."),
        ("Press Ctrl+C now.", "Press Control C now."),
        ("Edit .gitignore.", "Edit dot gitignore."),
        ("Go to example.com now.", "Go to example dot com now."),
    ],
)

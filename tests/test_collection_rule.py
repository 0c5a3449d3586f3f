"""The rule that keeps wholly-marked modules out of a run's collection (tests/conftest.py):
a module is skipped only when `-m` could select none of its tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import excludes_all, module_marks

FAST = "not model and not synth and not fuzz and not soak and not browser and not slow"
TESTS = Path(__file__).parent


@pytest.mark.parametrize(
    ("expression", "markers", "skipped"),
    [
        (FAST, {"slow"}, True),
        (FAST, {"model"}, True),
        ("model", {"slow"}, False),  # a slow module may hold a real-model test
        ("slow", {"slow"}, False),
        ("not slow", {"slow", "model"}, True),
        ("model and not browser", {"browser"}, True),
        ("model or browser", {"slow"}, False),
        ("not fuzz", {"model"}, False),
    ],
)
def test_a_module_is_skipped_only_when_none_of_its_tests_can_be_selected(
    expression: str, markers: set[str], skipped: bool
) -> None:
    assert excludes_all(expression, markers) is skipped


def test_the_markers_are_read_from_the_pytestmark_line(tmp_path: Path) -> None:
    module = tmp_path / "test_example.py"
    module.write_text("import pytest\n\npytestmark = pytest.mark.slow  # pytest.mark.model\n")
    assert module_marks(module) == {"slow"}  # a comment names no marker
    module.write_text("pytestmark = [pytest.mark.model, pytest.mark.browser]\n")
    assert module_marks(module) == {"model", "browser"}
    assert module_marks(tmp_path / "conftest.py") == set()


def test_the_suites_wholly_marked_modules_are_recognised() -> None:
    assert module_marks(TESTS / "container" / "test_barge_in_races.py") == {"slow"}
    assert module_marks(TESTS / "integrations" / "livekit" / "test_livekit_tts.py") == {"model"}
    assert module_marks(TESTS / "stacks" / "test_nag.py") == {"synth"}

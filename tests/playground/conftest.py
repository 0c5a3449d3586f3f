"""Browser tests: Debian's chromium, launched as playground.chromium launches it.

`make test` installs chromium (the Makefile's set-up, as root or with sudo); a run without it
fails with that instruction rather than skipping."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from playground.chromium import CHROMIUM, launch

if TYPE_CHECKING:  # Playwright is imported by the browser tests only, not by the page-server
    # tests beside them in the fast loop
    from playwright.sync_api import Browser, BrowserContext

    from tests.support.playground_page import PlaygroundPage


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: sync Playwright runs its own event loop on this thread while it is open,
    so it must be closed again before the suite's asyncio tests run."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> PlaygroundPage:
    from tests.support.playground_page import PlaygroundPage

    return PlaygroundPage(context.new_page())

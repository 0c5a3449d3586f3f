"""Screenshots of the playground for the docs: a finished turn and an interrupted one.

    make playground-screenshots      # writes docs/playground-finished.png, -interrupted.png
    python -m playground.screenshots --out out/screenshots    # elsewhere (a look, no commit)

Runs the local stack exactly as `make playground` does, drives the page in Debian's chromium
(headless, through Playwright), and captures the page after an answer played to its end, then
after the next answer was interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from devkit.cli import parser as cli_parser
from devkit.loopback import AppServer
from devkit.paths import REPO_ROOT
from playground.__main__ import local_target
from playground.chromium import launch
from playground.server import create_app

TIMEOUT_MS = 300_000


def send(page: Page, prompt: str) -> None:
    page.fill("#prompt", prompt)
    page.press("#prompt", "Enter")


def capture(page: Page, url: str, out: Path) -> None:
    page.goto(url)
    page.wait_for_function("() => window.playground && window.playground.connection.open")
    send(page, "Where is my order?")
    page.wait_for_function("() => window.playground.turns[0].state === 'done'", timeout=TIMEOUT_MS)
    page.screenshot(path=str(out / "playground-finished.png"))
    send(page, "Can you send it to my office instead?")
    page.wait_for_function(
        "() => window.playground.audio.heardMs() > 2200", timeout=TIMEOUT_MS, polling=20
    )
    page.click("#interrupt")
    page.wait_for_function(
        "() => window.playground.turns[1].agentHeard !== null", timeout=TIMEOUT_MS
    )
    page.screenshot(path=str(out / "playground-interrupted.png"))


def build_parser() -> argparse.ArgumentParser:
    parser = cli_parser("python -m playground.screenshots", __doc__)
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "docs", help="folder for the two PNGs (docs/)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        local_target(40.0) as config,
        AppServer(create_app(config)) as server,
        sync_playwright() as playwright,
    ):
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1000, "height": 760})
        capture(page, f"{server.http}/", args.out)
        browser.close()
    print(f"saved {args.out / 'playground-finished.png'} and playground-interrupted.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

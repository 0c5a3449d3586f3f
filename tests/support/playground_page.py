"""Driving the playground page in Chromium, and the measurements the tests take inside it.

The page keeps what it measures on `window.playground` (turns, audio clock, messages sent);
the checks of playground_checks.js run in the page (Playwright evaluates them there) against
the audio the page received and the audio its output tap recorded: what went to the speakers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

CHECKS = Path(__file__).with_name("playground_checks.js").read_text(encoding="utf-8")


class PlaygroundPage:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.console: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("websocket", lambda ws: self.requests.append(ws.url))

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.wait("() => window.playground && window.playground.connection.open", 15)

    def wait(self, expression: str, timeout_s: float, arg: Any = None) -> Any:
        handle = self.page.wait_for_function(expression, arg=arg, timeout=timeout_s * 1000)
        return handle.json_value()

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)

    def check(self, name: str, arg: Any = None) -> Any:
        """Run one of the measurements of playground_checks.js in the page."""
        return self.page.evaluate(f"(arg) => {CHECKS.strip()}[{name!r}](arg)", arg)

    def start_recording(self) -> None:
        self.check("startRecording")

    def stop_recording(self) -> int:
        return int(self.check("stopRecording"))

    def compare_output(self, turn: int) -> dict[str, Any]:
        return dict(self.check("compareOutput", turn))

    def sound(self, threshold: float, from_frame: int, to_frame: int) -> dict[str, Any]:
        return dict(self.check("sound", [threshold, from_frame, to_frame]))

    def voice_picker(self, timeout_s: float) -> dict[str, Any]:
        """The picker once the agent's voice list (or its failure) reached it."""
        self.wait(
            "() => document.getElementById('voice-hint').dataset.state !== 'waiting'", timeout_s
        )
        return dict(self.check("voicePicker"))

    def received(self, turn: int) -> dict[str, Any]:
        return dict(self.check("received", turn))

    def send(self, prompt: str) -> None:
        self.page.fill("#prompt", prompt)
        self.page.press("#prompt", "Enter")

    def turn(self, n: int) -> dict[str, Any]:
        value = self.check("turn", n)
        assert value is not None, f"no turn {n}"
        return dict(value)

    def wait_turn(self, n: int, states: tuple[str, ...], timeout_s: float) -> dict[str, Any]:
        self.wait(
            "([n, states]) => { const t = window.playground.turns[n - 1];"
            " return Boolean(t) && states.includes(t.state); }",
            timeout_s,
            [n, list(states)],
        )
        return self.turn(n)

    def wait_heard(self, ms: float, timeout_s: float) -> float:
        return float(
            self.wait(
                "(ms) => { const h = window.playground.audio.heardMs();"
                " return h >= ms ? h : false; }",
                timeout_s,
                ms,
            )
        )

    def error_text(self) -> str | None:
        box = self.page.locator("#error")
        return None if box.is_hidden() else box.inner_text()

    def wait_error(self, timeout_s: float) -> str:
        self.page.wait_for_selector("#error:not([hidden])", timeout=timeout_s * 1000)
        return self.page.locator("#error-text").inner_text()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

"""Drive one session over a real WebSocket and check it against the fuzz oracle."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from kokoro_server.text.markdown import MarkdownSpeech
from tests.support.session_scripts import LATE_FRAMES, Script
from tests.support.transcript import Frame, Transcript, parse, squash


async def collect(ws, timeout: float) -> list[Frame]:
    """Every frame until the server closes the connection (bounded by timeout)."""
    frames: list[Frame] = []

    async def loop() -> None:
        try:
            async for raw in ws:
                frames.append(raw if isinstance(raw, bytes) else json.loads(raw))
        except ConnectionClosed:
            pass

    await asyncio.wait_for(loop(), timeout)
    return frames


async def run_script(url: str, script: Script, timeout: float) -> tuple[Transcript, int | None]:
    """Send the script (reading concurrently), then the final utterance and close."""
    async with connect(url, max_size=None) as ws:
        reader = asyncio.create_task(collect(ws, timeout))
        for step in script.steps:
            await ws.send(step.payload)
        await ws.send(json.dumps({"text": script.final_text}))
        await ws.send(json.dumps({"type": "close"}))
        for late in script.after_close:  # refused with an error if read before session_end
            try:
                await ws.send(late)
            except ConnectionClosed:
                break
        frames = await reader
        code = ws.close_code
    return parse(frames), code


MAX_ERROR_CHARS = 400  # the longest error message: its text plus an 80-character excerpt


def check(
    script: Script, transcript: Transcript, close_code: int | None, audio_of: Callable | None
) -> None:
    """The fuzz invariants. audio_of(text) -> expected bytes, when the audio is predictable."""
    assert transcript.problems == []
    # Every bad frame got its specific error, in order; no valid frame got one. Frames sent
    # after `close` are answered while the session is still ending (a prefix of them). An
    # utterance with nothing to say (only emoji, markup...) is told so: a notice, not a refusal.
    codes = [code for code in transcript.error_codes if code != "nothing_to_say"]
    expected_codes = [s.code for s in script.steps if s.code]
    late = [LATE_FRAMES[frame] for frame in script.after_close]
    assert codes[: len(expected_codes)] == expected_codes
    assert codes[len(expected_codes) :] == late[: len(codes) - len(expected_codes)]
    assert all(e["fatal"] is False for e in transcript.errors)
    # An error quotes at most a short excerpt of what it refuses, never the input whole.
    assert all(len(e.get("message", "")) <= MAX_ERROR_CHARS for e in transcript.errors)
    # Split the accepted input at each cancel, like the server's generations.
    epochs_in: list[list[tuple[str, bool]]] = [[]]
    flushes_in = [0]
    for step in script.steps:
        if step.cancel:
            epochs_in.append([])
            flushes_in.append(0)
        elif step.code is None:
            epochs_in[-1].append((step.text, step.flush))
            flushes_in[-1] += step.flush
    epochs_in[-1].append((script.final_text, True))
    flushes_in[-1] += 1
    assert len(transcript.epochs) == len(epochs_in), "one `cancelled` per cancel"
    for n, (epoch, texts) in enumerate(zip(transcript.epochs, epochs_in, strict=True)):
        expected = squash(read_aloud(texts))
        heard = squash("".join(s.text for s in epoch.sentences))
        last = n == len(epochs_in) - 1
        if last:
            # After the last cancel, everything is heard exactly once, in order, complete.
            assert heard == expected
            assert all(s.complete for s in epoch.sentences)
            assert epoch.flushed == flushes_in[-1]
        else:
            # Before a cancel: a prefix, with at most the cut sentence incomplete at the end.
            assert expected.startswith(heard)
            assert all(s.complete for s in epoch.sentences[:-1])
        if audio_of is not None:
            for s in epoch.sentences:
                if s.complete:
                    assert bytes(s.audio) == audio_of(s.text), f"audio of {s.text!r}"
        else:
            assert all(s.audio for s in epoch.sentences if s.complete and squash(s.text))
    assert transcript.end is not None, "no session_end"
    assert transcript.end["sentences"] == len(transcript.sentences)
    assert close_code == 1000


def read_aloud(texts: list[tuple[str, bool]]) -> str:
    """What the session reads of its text messages (and flushes): the markdown step's output,
    docs/protocol.md "What is read"."""
    markdown = MarkdownSpeech()
    out = []
    for text, flush in texts:
        out.append(markdown.feed(text))
        if flush:
            out.append(markdown.flush())
    return "".join(out)


def ping_ms(http: str) -> float:
    response = httpx.get(f"{http}/ping", timeout=5)
    assert response.status_code == 200, response.text
    return response.elapsed.total_seconds() * 1000

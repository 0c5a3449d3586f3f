"""The barge-in scenario on a live server (`cancel` while sending, while synthesizing),
shared by tests/container/test_barge_in.py and the soak (tests/container/test_soak.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.support.transcript import Frame, parse
from tests.support.ws_frames import send


class Recorder:
    """Reads every frame in the background with its arrival time."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[tuple[float, Frame]] = []
        # Set on every frame, so a waiter acts on the frame it waits for at once (a poll
        # interval was time in which a loaded machine sent the rest of a sentence).
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            frame = raw if isinstance(raw, bytes) else json.loads(raw)
            self.frames.append((time.perf_counter(), frame))
            self.arrived.set()

    async def wait_for(
        self, pred: Callable[[Frame], bool], since: int = 0, timeout: float = 120.0
    ) -> tuple[float, Frame]:
        """The first frame from index `since` on that matches pred."""
        deadline = time.perf_counter() + timeout
        seen = since
        while True:
            for at, frame in self.frames[seen:]:
                if pred(frame):
                    return at, frame
            seen = len(self.frames)
            # No await between the scan and the clear: a frame read after the scan sets it again.
            self.arrived.clear()
            if self.task.done():  # nothing more will come: say so now, not at the deadline
                cause = None if self.task.cancelled() else self.task.exception()
                raise ConnectionError(
                    f"the connection ended after {seen} frames, none matching"
                ) from cause
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no matching frame in {timeout} s ({seen} frames)")
            with contextlib.suppress(TimeoutError):  # scanned once more above, then raised
                await asyncio.wait_for(self.arrived.wait(), left)

    async def wait_for_control(
        self, name: str, since: int = 0, timeout: float = 120.0
    ) -> tuple[float, dict[str, Any]]:
        """The first control message of type `name` from index `since` on."""
        at, frame = await self.wait_for(kind(name), since, timeout)
        assert isinstance(frame, dict)  # `kind` matches only control messages
        return at, frame


def kind(name: str) -> Callable[[Frame], bool]:
    return lambda f: isinstance(f, dict) and f.get("type") == name


async def barge_in(url: str) -> dict[str, float]:
    figures: dict[str, float] = {}
    async with connect(url, max_queue=None) as ws:
        rec = Recorder(ws)
        await send(ws, {"type": "start", "format": "pcm"})
        # 1) cancel while sentence 0 is being sent and sentence 1 is being synthesized
        await send(ws, {"type": "text", "text": "Hello there, this is the first sentence. "})
        # The second sentence is accepted (the third begins after it) and is still being
        # synthesized when the first sentence's audio starts, so it is always among the dropped.
        await send(
            ws,
            {"type": "text", "text": "And this second one will be dropped. So will the third one."},
        )
        await rec.wait_for(lambda f: isinstance(f, bytes))
        sent_at, mark = time.perf_counter(), len(rec.frames)
        await send(ws, {"type": "cancel"})
        got_at, cancelled = await rec.wait_for_control("cancelled", since=mark)
        figures["cancel_during_send_ms"] = (got_at - sent_at) * 1000
        figures["dropped_during_send"] = cancelled["dropped"]
        audio_after_cancel_sent = sum(
            len(f) for at, f in rec.frames if isinstance(f, bytes) and sent_at <= at <= got_at
        )
        figures["audio_bytes_between_cancel_and_cancelled"] = audio_after_cancel_sent
        # 2) the session takes new text at once
        mark = len(rec.frames)
        await send(ws, {"text": "Okay."})
        await rec.wait_for(kind("flushed"), since=mark)
        # 3) cancel while a sentence is only being synthesized (nothing sent yet)
        await send(ws, {"text": "This sentence is cancelled while the model works on it."})
        await asyncio.sleep(0.3)
        sent_at, mark = time.perf_counter(), len(rec.frames)
        await send(ws, {"type": "cancel"})
        got_at, cancelled = await rec.wait_for_control("cancelled", since=mark)
        figures["cancel_during_synthesis_ms"] = (got_at - sent_at) * 1000
        figures["dropped_during_synthesis"] = cancelled["dropped"]
        await send(ws, {"text": "Done."})
        await send(ws, {"type": "close"})
        await rec.wait_for(kind("session_end"))
        await rec.task
    transcript = parse([f for _, f in rec.frames])
    assert transcript.problems == []  # includes: no audio outside a sentence after cancelled
    assert transcript.errors == []
    assert len(transcript.epochs) == 3
    # Epoch 1: at most the first sentence (possibly cut); nothing of the dropped sentences.
    first = transcript.epochs[0].sentences
    assert [s.text for s in first] == ["Hello there, this is the first sentence."]
    # Dropped: the second sentence, and the first when the cancel cut it (on a loaded machine
    # all of its frames can go out before the cancel is read; the third waits in the segmenter).
    figures["first_sentence_cut"] = float(not first[0].complete)
    assert figures["dropped_during_send"] == 1 + figures["first_sentence_cut"]
    # After each cancel, new text is spoken, complete, with indices continuing.
    assert [s.text for s in transcript.epochs[1].sentences] == ["Okay."]
    assert [s.text for s in transcript.epochs[2].sentences] == ["Done."]
    assert all(s.complete and s.audio for e in transcript.epochs[1:] for s in e.sentences)
    assert figures["dropped_during_synthesis"] == 1
    return figures

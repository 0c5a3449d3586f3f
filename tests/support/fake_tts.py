"""FakeTtsServer: a test double emitting synthetic PCM, for fast relay/ordering/cancel tests.

It speaks the session protocol v1 over a real websockets server on 127.0.0.1 but synthesizes
nothing: each sentence becomes a few frames of made-up bytes (the first starting with 0x7B
`{`, like PCM that happens to look like JSON). The real Kokoro server is used in the
end-to-end tests.

Asked for word timestamps (`start` with `word_timestamps: true`, protocol v1.1), it sends a
`words` message after each `sentence_start`: the sentence's words spread evenly over its
made-up audio, each sounding for 80% of its share (invented timings: the real model's come
from its durations).

`fault` makes it misbehave after `fault_after_frames` audio frames of a session, for the
failure tests: "drop" (abrupt TCP close), "stall" (sends nothing more, keeps the socket
open), "garbage" (a text frame that is not JSON), "bad_control" (a sentence_start whose
sample_rate is not a number); "audio_first" sends audio before any sentence_start.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

FAULTS = ("drop", "stall", "garbage", "bad_control", "audio_first")
SENTENCE = re.compile(r".*?[.!?](?:\s+|$)", re.S)


def fake_pcm(index: int, frame: int, size: int) -> bytes:
    body = bytes((index * 31 + frame * 7 + i) % 256 for i in range(size - 1))
    return b"{" + body


class FakeSession:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.audio_bytes = 0
        self.frames = 0
        self.faulted_at: float | None = None  # perf_counter() when the fault began
        self.closed = asyncio.Event()

    def types(self) -> list[str]:
        return [m.get("type", "") for m in self.received]


@dataclass(eq=False)
class FakeTtsServer:
    """The knobs of one fake server; `url` is set once it listens (`async with`)."""

    synth_delay_s: float = 0.01
    frames_per_sentence: int = 3
    frame_bytes: int = 960
    fatal_on_text: str | None = None
    fault: str | None = None
    fault_after_frames: int = 2
    sessions: list[FakeSession] = field(default_factory=list, init=False)
    url: str = field(default="", init=False)

    def __post_init__(self) -> None:
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}, got {self.fault!r}")

    async def __aenter__(self) -> FakeTtsServer:
        self._server = await serve(self._handler, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()
        await self._server.wait_closed()

    @property
    def sentence_ms(self) -> float:
        """Each sentence's made-up audio: 16-bit PCM at 24 kHz."""
        return self.frames_per_sentence * self.frame_bytes / 48.0

    def words_message(self, index: int, text: str) -> dict[str, Any]:
        words = text.split()
        share = self.sentence_ms / len(words)
        timed = [
            {"text": w, "start_ms": round(i * share), "end_ms": round(i * share + 0.8 * share)}
            for i, w in enumerate(words)
        ]
        return {"type": "words", "index": index, "words": timed}

    async def _handler(self, ws: ServerConnection) -> None:
        session = FakeSession()
        self.sessions.append(session)
        work: asyncio.Queue[Any] = asyncio.Queue()
        state: dict[str, Any] = {"buffer": "", "index": 0, "word_timestamps": False}

        async def send(msg: dict[str, Any]) -> None:
            await ws.send(json.dumps(msg))

        async def misbehave() -> None:
            session.faulted_at = time.perf_counter()
            if self.fault == "drop":
                ws.transport.abort()  # no close frame: the TCP connection just goes away
            elif self.fault == "garbage":
                await ws.send("this is not a control message {")
            elif self.fault == "bad_control":
                await send({"type": "sentence_start", "index": 99, "sample_rate": "fast"})
            await asyncio.Future()  # stall (and after any fault): send nothing more

        async def synth() -> None:
            while True:
                item = await work.get()
                if item == "flushed":
                    await send({"type": "flushed"})
                elif item == "end":
                    await send({"type": "session_end", "sentences": state["index"]})
                    await ws.close()
                    return
                else:
                    index, text = item
                    if self.fault == "audio_first":
                        await ws.send(fake_pcm(index, 0, self.frame_bytes))
                        await misbehave()
                    await send(
                        {
                            "type": "sentence_start",
                            "index": index,
                            "text": text,
                            "format": "pcm",
                            "sample_rate": 24000,
                        }
                    )
                    if state["word_timestamps"]:
                        await send(self.words_message(index, text))
                    await asyncio.sleep(self.synth_delay_s)
                    total = 0
                    for k in range(self.frames_per_sentence):
                        if self.fault and session.frames == self.fault_after_frames:
                            await misbehave()
                        session.frames += 1
                        data = fake_pcm(index, k, self.frame_bytes)
                        await ws.send(data)
                        total += len(data)
                        session.audio_bytes += len(data)
                    await send(
                        {
                            "type": "synthesis_complete",
                            "index": index,
                            "audio_bytes": total,
                            "duration_s": total / 48000,
                            "synth_ms": 1.0,
                        }
                    )

        def release(everything: bool) -> None:
            buf = state["buffer"]
            pieces = [m.group() for m in SENTENCE.finditer(buf)]
            used = sum(len(p) for p in pieces)
            if everything and buf[used:].strip():
                pieces.append(buf[used:])
                used = len(buf)
            state["buffer"] = buf[used:]
            for piece in pieces:
                if piece.strip():
                    work.put_nowait((state["index"], piece.strip()))
                    state["index"] += 1

        worker = asyncio.create_task(synth())
        try:
            async for frame in ws:  # ends quietly on a close frame; a dropped peer raises
                msg = json.loads(frame)
                session.received.append(msg)
                kind = msg.get("type")
                if kind == "start":
                    state["word_timestamps"] = bool(msg.get("word_timestamps"))
                elif kind == "text":
                    if self.fatal_on_text and self.fatal_on_text in msg["text"]:
                        await send(
                            {
                                "type": "error",
                                "code": "internal",
                                "fatal": True,
                                "message": "synthetic fatal failure",
                            }
                        )
                        continue
                    state["buffer"] += msg["text"]
                    release(everything=False)
                elif kind == "flush":
                    release(everything=True)
                    work.put_nowait("flushed")
                elif kind == "cancel":
                    dropped = work.qsize()
                    while not work.empty():
                        work.get_nowait()
                    state["buffer"] = ""
                    worker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await worker
                    await send({"type": "cancelled", "dropped": dropped})
                    worker = asyncio.create_task(synth())
                elif kind == "close":
                    release(everything=True)
                    work.put_nowait("end")
        except ConnectionClosed:
            pass  # the agent went away without a close frame: that is what some tests do
        finally:
            session.closed.set()
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await worker

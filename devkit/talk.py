"""A spoken conversation with the voice agent, as the caller CLI has it: several turns in one
conversation (SSE with a session_id, or one /ws connection), each answer "played" on a
simulated real-time player (devkit.playback), with captions shown as their words are reached
and, if asked, an interrupt after N ms of playback.

Over /ws the interrupt is `{"type": "interrupt", "played_ms"}` and the agent's `interrupted`
event says what it kept; over SSE the caller stops reading and the next request carries
`"interrupted": {"played_ms"}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import httpx
from websockets.asyncio.client import ClientConnection, connect

from devkit.agent_client import InvocationResult
from devkit.agent_events import Event, is_terminal, sse_events, ws_events, ws_url
from devkit.playback import PlaybackClock, pcm_ms

POLL_S = 0.01  # how often the simulated player looks at its clock


@dataclass
class Played:
    """One answer as the caller got and played it."""

    result: InvocationResult
    stopped_at_ms: float | None = None  # where the caller interrupted, if it did
    remembered: str | None = None  # what the agent says it kept (/ws `interrupted` event)


@dataclass
class Captions:
    """Prints each sentence's words on its own line as playback reaches them."""

    out: TextIO
    pending: list[tuple[float, int, float, str]] = field(default_factory=list)
    line: int | None = None  # the sentence whose line is open

    def add(self, event: dict[str, Any]) -> None:
        offset = float(event["offset_ms"])
        for w in event["words"]:
            self.pending.append((offset + w["start_ms"], event["index"], offset, w["text"]))

    def show(self, played_ms: float) -> None:
        while self.pending and self.pending[0][0] <= played_ms:
            _, index, offset, text = self.pending.pop(0)
            if index != self.line:
                prefix = "\n" if self.line is not None else ""
                self.out.write(f"{prefix}  [{offset / 1000:6.2f} s] {text}")
                self.line = index
            else:
                self.out.write(f" {text}")
            self.out.flush()

    def end(self) -> None:
        if self.line is not None:
            self.out.write("\n")
            self.line = None
        self.pending.clear()


class Player:
    """Plays one answer in real time: feeds the clock with PCM as it arrives, shows captions,
    and sets `stopped` once playback reaches `stop_at_ms`."""

    def __init__(self, captions: Captions | None, stop_at_ms: float | None) -> None:
        self.clock = PlaybackClock()
        self.captions = captions
        self.stop_at_ms = stop_at_ms
        self.stopped = asyncio.Event()
        self.ended = asyncio.Event()  # the answer's stream is over: play out the buffer

    @property
    def realtime(self) -> bool:
        """Only captions and an interrupt need the answer played out in real time."""
        return self.captions is not None or self.stop_at_ms is not None

    def take(self, event: dict[str, Any], audio: bytes | None) -> None:
        if self.stopped.is_set():
            return  # in flight when the caller stopped: never played
        if audio is not None:
            self.clock.feed(pcm_ms(audio, int(event["sample_rate"])))
        elif event["type"] == "words" and self.captions is not None:
            self.captions.add(event)

    async def play(self) -> None:
        while True:
            played = self.clock.played_ms()
            if self.stop_at_ms is not None and played >= self.stop_at_ms:
                played = self.stop_at_ms
            if self.captions is not None:
                self.captions.show(played)
            if self.stop_at_ms is not None and played >= self.stop_at_ms:
                self.stopped.set()
                break
            if self.ended.is_set() and played >= self.clock.received_ms:
                break
            await asyncio.sleep(POLL_S)
        if self.captions is not None:
            self.captions.end()


async def play_answer(
    events: AsyncIterator[Event],
    result: InvocationResult,
    player: Player,
    on_stop: Callable[[], Awaitable[None]],
    stop_reading: bool,
) -> None:
    """Read one answer while the player plays it, then let it play out. When playback reaches
    the stop point, `on_stop` runs at once (/ws: send the interrupt), and with `stop_reading`
    (SSE) the stream is dropped too."""
    if not player.realtime:
        await _read(events, result, player)
        return
    playing = asyncio.create_task(player.play())
    stopper = asyncio.create_task(player.stopped.wait())
    reading = asyncio.create_task(_read(events, result, player))
    stop_sent = False
    try:
        await asyncio.wait({reading, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():  # the caller stopped while the answer still came
            await on_stop()
            stop_sent = True
            if stop_reading:
                reading.cancel()
        await asyncio.wait({reading})
        if not reading.cancelled():
            reading.result()  # a broken stream is an error, not the end of the answer
        player.ended.set()
        await playing  # what was buffered plays out, unless the caller stops it
        if player.stopped.is_set() and not stop_sent:
            await on_stop()
    finally:
        for task in (playing, stopper, reading):
            task.cancel()
        await asyncio.gather(playing, stopper, reading, return_exceptions=True)


async def _read(events: AsyncIterator[Event], result: InvocationResult, player: Player) -> None:
    async for event, audio in events:
        result.add(event, audio)
        player.take(event, audio)
        if is_terminal(event):
            return


async def _nothing() -> None:
    return None


async def ask_sse(
    client: httpx.AsyncClient, base_url: str, payload: dict[str, Any], player: Player
) -> Played:
    """One turn over SSE; an interrupt drops the stream (the next request carries it)."""
    result = InvocationResult(mode=str(payload.get("mode", "stream")))
    events = sse_events(client, base_url, payload)
    await play_answer(events, result, player, _nothing, stop_reading=True)
    return Played(result, player.stop_at_ms if player.stopped.is_set() else None)


async def ask_ws(ws: ClientConnection, payload: dict[str, Any], player: Player) -> Played:
    """One turn on an open /ws connection; an interrupt goes out as a message and the
    agent's `interrupted` event ends the answer."""
    result = InvocationResult(mode=str(payload.get("mode", "stream")))
    played = Played(result)

    async def interrupt() -> None:
        played.stopped_at_ms = player.stop_at_ms
        await ws.send(json.dumps({"type": "interrupt", "played_ms": player.stop_at_ms}))

    await ws.send(json.dumps(payload))
    await play_answer(ws_events(ws), result, player, interrupt, stop_reading=False)
    if played.stopped_at_ms is not None:
        if result.interrupted is None:
            # The answer had ended (`done`) before the interrupt reached the agent: the
            # agent cuts that answer and says so in an event of its own.
            async for event, audio in ws_events(ws):
                result.add(event, audio)
                if event["type"] == "interrupted" or event["type"] == "error":
                    break
        if result.interrupted is not None:
            played.remembered = str(result.interrupted["heard"])
    return played


@dataclass(frozen=True)
class TalkOptions:
    url: str
    ws: bool = False
    session_id: str | None = None
    interrupt_after_ms: float | None = None  # interrupts the first answer
    captions: bool = False
    request: dict[str, Any] = field(default_factory=dict)  # mode, format, voice


async def converse(
    prompts: list[str], options: TalkOptions, out: TextIO | None = None
) -> list[Played]:
    """Ask `prompts` in order, in one conversation, printing each turn (to stdout)."""
    out = out or sys.stdout
    turns: list[Played] = []
    carried: float | None = None  # SSE: the previous answer was interrupted here
    async with contextlib.AsyncExitStack() as stack:
        if options.ws:
            ws = await stack.enter_async_context(connect(ws_url(options.url), max_size=None))
        else:
            client = await stack.enter_async_context(
                httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0))
            )
        for number, prompt in enumerate(prompts):
            payload = {**options.request, "prompt": prompt}
            if options.session_id:
                payload["session_id"] = options.session_id
            if carried is not None:
                payload["interrupted"] = {"played_ms": carried}
            out.write(f"you> {prompt}\n")
            stop_at = options.interrupt_after_ms if number == 0 else None
            player = Player(Captions(out) if options.captions else None, stop_at)
            if options.ws:
                played = await ask_ws(ws, payload, player)
            else:
                played = await ask_sse(client, options.url, payload, player)
            carried = played.stopped_at_ms
            print_turn(played, options, out)
            turns.append(played)
    return turns


def print_turn(played: Played, options: TalkOptions, out: TextIO) -> None:
    r = played.result
    if not options.captions:
        out.write(f"agent> {r.text}\n")
    if played.stopped_at_ms is not None:
        kept = (
            f'; the agent remembers "{played.remembered}"'
            if played.remembered is not None
            else " (sent with the next request)"
        )
        out.write(f"  -- interrupted at {played.stopped_at_ms:g} ms{kept}\n")
    for e in r.errors:
        out.write(f"  error {e.get('code')}: {e.get('message')}\n")
    m = r.metrics
    if m:
        out.write(
            f"  first audio {m.get('time_to_first_audio_ms')} ms, {m.get('sentences')} "
            f"sentences, {m.get('audio_seconds')} s audio, history {m.get('history_turns')} "
            "turns\n"
        )

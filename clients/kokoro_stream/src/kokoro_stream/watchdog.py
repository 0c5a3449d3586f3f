"""A bound on a server's silence while it owes an answer.

A session owes an answer from the moment a `flush`, `cancel` or `close` goes out until its
`flushed`, `cancelled` or `session_end` comes back (docs/protocol.md: a `cancelled` also
answers every `flush` sent before that cancel; `session_end` answers everything). While it
owes one, a server that sends nothing at all for `timeout_s` has stalled: `WatchedSession`
ends its events with `TtsFailure("tts_timeout", ...)` instead of waiting forever. While it
owes nothing, quiet is normal (the caller's LLM is still writing) and is never cut.

Every event restarts the clock, so a long answer that keeps streaming is never cut either.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncGenerator
from typing import Any

from .base import TtsSession
from .events import Cancelled, Flushed, SessionEnd, TtsEvent, TtsFailure
from .messages import ClientMessageType

__all__ = ["OwedAnswers", "WatchedSession"]

_ASKS = frozenset({ClientMessageType.FLUSH, ClientMessageType.CANCEL, ClientMessageType.CLOSE})


class OwedAnswers:
    """The asks still unanswered, in the order they were sent."""

    def __init__(self) -> None:
        self._asks: deque[str] = deque()

    def __bool__(self) -> bool:
        return bool(self._asks)

    def sent(self, message_type: str) -> None:
        if message_type in _ASKS:
            self._asks.append(message_type)

    def heard(self, event: TtsEvent) -> None:
        match event:
            case Flushed():
                _drop_first(self._asks, ClientMessageType.FLUSH)
            case Cancelled():
                # The cancel answers the flushes sent before it.
                if ClientMessageType.CANCEL in self._asks:
                    while self._asks.popleft() != ClientMessageType.CANCEL:
                        pass
            case SessionEnd():
                self._asks.clear()


def _drop_first(asks: deque[str], kind: str) -> None:
    with contextlib.suppress(ValueError):
        asks.remove(kind)


class WatchedSession:
    """`session` (any TtsSession), its events ended by `tts_timeout` when the server stays
    silent for `timeout_s` while it owes an answer."""

    def __init__(self, session: TtsSession, timeout_s: float) -> None:
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be above 0, got {timeout_s!r}")
        self.session = session
        self.timeout_s = timeout_s
        self.owed = OwedAnswers()
        self._last_heard = time.monotonic()  # the last event, or the ask that began a wait

    async def send(self, message: dict[str, Any]) -> None:
        self._asked(str(message.get("type", "")))
        await self.session.send(message)

    async def send_text(self, text: str) -> None:
        await self.session.send_text(text)

    async def flush(self) -> None:
        self._asked(ClientMessageType.FLUSH)
        await self.session.flush()

    async def cancel(self) -> None:
        self._asked(ClientMessageType.CANCEL)
        await self.session.cancel()

    async def close(self) -> None:
        self._asked(ClientMessageType.CLOSE)
        await self.session.close()

    async def aclose(self) -> None:
        await self.session.aclose()

    def _asked(self, message_type: str) -> None:
        if not self.owed:
            self._last_heard = time.monotonic()  # the wait for this answer starts now
        self.owed.sent(message_type)

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        source = self.session.events()
        try:
            while True:
                try:
                    event = await self._next(source)
                except StopAsyncIteration:
                    return
                if event is None:
                    yield TtsFailure(
                        "tts_timeout",
                        f"no answer for {self.timeout_s:g} s (the server went silent)",
                    )
                    return
                self._last_heard = time.monotonic()
                self.owed.heard(event)
                yield event
        finally:
            await source.aclose()

    async def _next(self, source: AsyncGenerator[TtsEvent, None]) -> TtsEvent | None:
        """The next event, or None once the server owes an answer and was silent too long."""
        pending = asyncio.ensure_future(anext(source))
        poll_s = min(self.timeout_s / 4, 0.5)  # an ask may start the clock mid-wait
        try:
            while True:
                done, _ = await asyncio.wait({pending}, timeout=poll_s)
                if done:
                    return pending.result()
                if self.owed and time.monotonic() - self._last_heard >= self.timeout_s:
                    return None
        finally:
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending

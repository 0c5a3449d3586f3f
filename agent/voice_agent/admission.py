"""Waiting out a transient `busy` from the TTS server instead of handing it to the caller.

The server refuses a session it cannot serve in real time with a fatal `busy` error as the
session's first message (docs/protocol.md). Such a refusal is usually short-lived (another
caller just hung up or finished), so one answer's session is opened through `AdmittedSession`:
until the server sends anything other than `busy`, every message sent is kept; a `busy` then
reopens the session after a short back-off (0.1, 0.2, 0.4, 0.8, then every 1 s; at most
`budget_s` of waiting in all), logs it, and sends the kept messages again, in order. The
caller gets its first audio a little later instead of an error; past the budget the `busy`
reaches it as `tts_busy`. A refusal can also end the opening itself (the server's close
1013 can beat the client's `start`): that is waited out the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Literal, TypeGuard

from kokoro_stream.base import TtsSession
from kokoro_stream.events import ServerError, TtsEvent, TtsFailure

from .caller_errors import tts_failure_message

log = logging.getLogger("voice_agent.admission")

BUSY_CLOSE_CODE = 1013
MAX_DELAY_S = 1.0  # back-off cap: a long budget polls each second, never sleeps for long

_Sent = tuple[Literal["text", "flush", "close"], str]


def refused(exc: BaseException) -> bool:
    """An open that failed because the server refused the session (close code 1013, "try
    again later", which is how the container closes a `busy` session)."""
    received = getattr(exc, "rcvd", None)
    return getattr(received, "code", None) == BUSY_CLOSE_CODE or "busy" in str(exc).lower()


class _NotOpen:
    """Stands in for the session until the first open succeeds (never used for I/O)."""

    async def send(self, message: dict[str, Any]) -> None: ...
    async def send_text(self, text: str) -> None: ...
    async def flush(self) -> None: ...
    async def cancel(self) -> None: ...
    async def close(self) -> None: ...
    async def aclose(self) -> None: ...

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        return
        yield


_NOT_OPEN = _NotOpen()


def is_busy(event: TtsEvent) -> TypeGuard[ServerError]:
    return isinstance(event, ServerError) and event.code == "busy"


class AdmittedSession:
    """A TtsSession that reopens itself while the server answers `busy` (see module doc)."""

    def __init__(
        self,
        open_session: Callable[[], Awaitable[TtsSession]],
        inner: TtsSession,
        budget_s: float = 2.0,
        first_delay_s: float = 0.1,
    ) -> None:
        self._open = open_session
        self._inner = inner
        self.budget_s = budget_s
        self._delay_s = first_delay_s
        self.waited_s = 0.0  # spent waiting out `busy`
        self.retries = 0
        self._kept: list[_Sent] | None = []  # None once admitted: nothing to replay
        self._lock = asyncio.Lock()  # a send never goes to a session being replaced

    @classmethod
    async def open(
        cls,
        open_session: Callable[[], Awaitable[TtsSession]],
        budget_s: float = 2.0,
        first_delay_s: float = 0.1,
    ) -> AdmittedSession:
        """Open the first session; a refusal while opening (the server's `busy` and close
        1013 can beat the client's `start`) is waited out like one that comes as an event."""
        waiter = cls(open_session, _NOT_OPEN, budget_s, first_delay_s)
        while True:
            try:
                waiter._inner = await open_session()
                return waiter
            except Exception as exc:
                if not refused(exc) or not waiter._patient():
                    raise
                await waiter._back_off(repr(exc))

    async def send(self, message: dict[str, Any]) -> None:
        """A raw protocol message (e.g. a keepalive) to the session of the moment; not kept
        for replay: only text, flush and close are what a reopened session must hear."""
        async with self._lock:
            await self._inner.send(message)

    async def send_text(self, text: str) -> None:
        await self._send("text", text)

    async def flush(self) -> None:
        await self._send("flush")

    async def close(self) -> None:
        await self._send("close")

    async def cancel(self) -> None:
        async with self._lock:
            if self._kept is not None:
                self._kept.clear()  # cancelled before admission: nothing left to replay
            await self._inner.cancel()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def _send(self, kind: Literal["text", "flush", "close"], text: str = "") -> None:
        async with self._lock:
            if self._kept is None:
                await _deliver(self._inner, kind, text)
                return
            self._kept.append((kind, text))
            # Not admitted yet: a refused session may already be closed; the kept message
            # goes to the next one, so a failed send here is not the caller's problem.
            with contextlib.suppress(Exception):
                await _deliver(self._inner, kind, text)

    async def events(self) -> AsyncGenerator[TtsEvent, None]:
        while True:
            refusal: ServerError | None = None
            events = self._inner.events()
            try:
                async for event in events:
                    if self._kept is not None:
                        if is_busy(event) and self._patient():
                            refusal = event
                            break
                        self._kept = None  # admitted (or out of patience): no replay from now
                    yield event
            finally:
                await events.aclose()
            if refusal is None:
                return
            try:
                await self._reopen(refusal)
            except Exception as exc:
                # Still refused when the budget ran out: the caller hears `busy`, not that the
                # TTS is down (the same rule as the first open's, in pipeline.py).
                code = "tts_busy" if refused(exc) else "tts_unavailable"
                yield TtsFailure(code, tts_failure_message("cannot reopen the TTS session", exc))
                return

    def _patient(self) -> bool:
        """Whether one more back-off still fits the budget."""
        return self.waited_s + self._delay_s <= self.budget_s

    async def _back_off(self, why: str) -> None:
        delay = self._delay_s
        log.warning(
            "TTS busy; retrying",
            extra={
                "fields": {
                    "retry": self.retries + 1,
                    "delay_s": delay,
                    "waited_s": round(self.waited_s, 3),
                    "refusal": why[:200],
                }
            },
        )
        await asyncio.sleep(delay)
        self.waited_s += delay
        self._delay_s = min(delay * 2, MAX_DELAY_S)
        self.retries += 1

    async def _reopen(self, refusal: ServerError) -> None:
        async with self._lock:
            with contextlib.suppress(Exception):
                await self._inner.aclose()
            await self._back_off(refusal.message)
            while True:
                try:
                    self._inner = await self._open()
                    break
                except Exception as exc:
                    if not refused(exc) or not self._patient():
                        raise
                    await self._back_off(repr(exc))
            for kind, text in self._kept or ():
                await _deliver(self._inner, kind, text)


async def _deliver(session: TtsSession, kind: Literal["text", "flush", "close"], text: str) -> None:
    if kind == "text":
        await session.send_text(text)
    elif kind == "flush":
        await session.flush()
    else:
        await session.close()

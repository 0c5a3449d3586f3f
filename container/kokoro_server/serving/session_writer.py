"""A session's writes to its client, and the generation that decides which still go out.

Barge-in bumps `generation` under `lock`; every write of an item checks its generation
under the same lock, so nothing of a dropped sentence is written after `cancelled`. Every
write is bounded by `send_stall_s`: a client that accepts nothing that long is aborted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Protocol

from kokoro_server.config import Settings
from kokoro_server.logs import fields
from kokoro_server.serving.session_record import Liveness, SessionRecord

log = logging.getLogger("kokoro.session")


class TransportClosed(Exception):
    """The peer went away (or the socket failed): the session ends without more output."""


class Transport(Protocol):
    async def receive(self) -> str | bytes: ...  # raises TransportClosed
    async def send_text(self, data: str) -> None: ...
    async def send_bytes(self, data: bytes) -> None: ...
    async def close(self, code: int = 1000, reason: str = "") -> None: ...
    def abort(self) -> None: ...  # drop the connection, unsent data and all


class Writer:
    def __init__(
        self, transport: Transport, settings: Settings, record: SessionRecord, live: Liveness
    ) -> None:
        self.transport = transport
        self.stall_s = settings.send_stall_s
        self.record = record
        self.live = live
        self.lock = asyncio.Lock()
        self.generation = 0

    async def send_control(self, text: str, generation: int | None = None) -> None:
        """A control message, unless it belongs to a generation a cancel dropped."""
        async with self.lock:
            if generation is None or generation == self.generation:
                await self.write_text(text)

    async def write_text(self, text: str) -> None:
        await self._write(self.transport.send_text(text))

    async def write_bytes(self, data: bytes) -> None:
        await self._write(self.transport.send_bytes(data))

    async def _write(self, sending: Coroutine[object, object, None]) -> None:
        """One write, which waits while the client's buffers are full. A client that
        accepts nothing for send_stall_s is dropped: its slot and its sentences free."""
        self.live.writing_since = time.perf_counter()
        try:
            await asyncio.wait_for(sending, self.stall_s)
        except TransportClosed:
            raise
        except TimeoutError:
            self._stalled()
            raise TransportClosed("client stopped reading") from None
        except Exception as exc:  # the socket died under us
            raise TransportClosed(str(exc)) from exc
        finally:
            self.live.writing_since = None
        self.live.progressed()

    def _stalled(self) -> None:
        self.record.ended = "stalled"
        log.warning(
            "session stalled",
            extra=fields(
                session=self.record.id,
                request_id=self.record.request_id,
                reason=f"the client accepted no audio for {self.stall_s:g} s",
                pending=self.record.pending,
            ),
        )
        self.transport.abort()

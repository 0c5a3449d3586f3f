"""Connections that stop taking part get closed: uvicorn has no timer for either case.

HTTP: a connection that never finishes a request head.

uvicorn's only connection timer, `timeout_keep_alive`, starts when a response completes and
stops at the next byte: a connection that sends nothing, or half a request line, holds a
descriptor forever. This protocol adds a header timer on top of uvicorn's h11 protocol: it
runs while the connection waits for a complete request head (from the accept, and from the
first byte of every later request) and closes the connection when it fires. It stops once
uvicorn has a request to serve, or once the connection is upgraded: a WebSocket session is
then driven by the WebSocket protocol, which this timer never sees again.

WebSocket, a peer that floods: one socket read (up to 256 KiB) is parsed in one callback, so
20,000 tiny frames arriving together held the event loop (pings, every other session) for
50-160 ms. `AbortableWebSocketProtocol` parses at most FEED_BYTES per loop turn.

WebSocket, a peer that stops reading. Closing a socket (uvicorn's keepalive timeout, or the
close handshake) waits for its unsent data to leave, which with such a peer is never: the
socket and its session stayed open until the peer reset it. `AbortableWebSocketProtocol`
aborts instead when the keepalive ping goes unanswered, and gives the application a way to
abort (the scope extension ABORT_EXTENSION) for a session whose client accepts no audio.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

# ASGI scope extension (server-specific, as the ASGI spec allows): {"abort": callable} drops
# the connection at once, unsent data and all.
ABORT_EXTENSION = "kokoro.abort"
FEED_BYTES = 4 * 1024  # parsed per loop turn: at most about 120 frames, a few milliseconds


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing connections whose request head is late."""

    header_timeout_s: ClassVar[float] = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if not self._serving_request():
            self._arm_header_timer()  # first bytes of a new request on a kept-alive connection
        super().data_received(data)
        if self._serving_request() or self._upgraded():
            self._cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _serving_request(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _upgraded(self) -> bool:
        return self.transport.get_protocol() is not self

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_late)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_late(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self._serving_request() or self._upgraded():
            return
        # No response: there is no request to answer, and a slow client gets nothing to read.
        self.transport.close()


def header_timeout_protocol(timeout_s: float) -> type[HeaderTimeoutProtocol]:
    """The protocol class to give uvicorn's `http` option, with this header timeout."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout_s": timeout_s})


class AbortableWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, able to drop a peer that does not read, and
    parsing a big read in slices, one per loop turn."""

    _unfed: deque[bytes] | None = None  # read, not parsed yet, in slices, oldest first

    def data_received(self, data: bytes) -> None:
        if self._unfed is None:
            self._unfed = deque()
        feeding = bool(self._unfed)  # a slice is already due on the next turn
        self._unfed.extend(data[i : i + FEED_BYTES] for i in range(0, len(data), FEED_BYTES))
        if not feeding:
            self._feed_next()

    def _feed_next(self) -> None:
        unfed = self._unfed
        if not unfed:
            return
        if self.transport.is_closing():
            unfed.clear()
            return
        super().data_received(unfed.popleft())
        if unfed:
            self.loop.call_soon(self._feed_next)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # set only for a handshake that is accepted
        if scope is not None:
            scope["extensions"][ABORT_EXTENSION] = {"abort": self.transport.abort}

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()  # sends the close frame and closes...
        self.transport.abort()  # ...without waiting for a peer that reads nothing

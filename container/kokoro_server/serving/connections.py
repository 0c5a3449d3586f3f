"""HTTP connections that never finish a request get closed (uvicorn has no such timer).

uvicorn's only connection timer, `timeout_keep_alive`, starts when a response completes and
stops at the next byte: a connection that sends nothing, or half a request line, holds a
descriptor forever. This protocol adds a header timer on top of uvicorn's h11 protocol: it
runs while the connection waits for a complete request head (from the accept, and from the
first byte of every later request) and closes the connection when it fires. It stops once
uvicorn has a request to serve, or once the connection is upgraded: a WebSocket session is
then driven by the WebSocket protocol, which this timer never sees again.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol


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

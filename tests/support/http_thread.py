"""One stdlib HTTP server on 127.0.0.1 in a background thread, for the test doubles of outside
hosts (weights hosts, the container credentials endpoint, Bedrock).

Its loop checks for shutdown every 20 ms: `serve_forever`'s default of 0.5 s made every
test that stops a server wait half a second in its teardown."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

POLL_S = 0.02


class HttpThread:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

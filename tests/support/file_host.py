"""A file host on 127.0.0.1 standing in for the upstream weights hosts (GitHub releases,
Hugging Face): it follows their conventions that the downloaders rely on and counts what it
serves, so idempotency and resumption are measured, not assumed.

- `/files/<name>`: the file; `Range: bytes=N-` is answered 206 with `Content-Range` (as both
  hosts do), or ignored with a 200 when `honour_range` is off;
- `/redirect/<name>`: 302 to `/files/<name>`, like a GitHub release asset;
- `cut_after[name] = n`: the connection drops after n bytes of that file (once), with the
  full Content-Length announced, like a network failure mid-download.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any, Self

from tests.support.http_thread import HttpThread

_RANGE = re.compile(r"^bytes=(\d+)-$")


class FileHost:
    def __init__(self, files: dict[str, bytes], honour_range: bool = True) -> None:
        self.files = files
        self.honour_range = honour_range
        self.cut_after: dict[str, int] = {}
        self.requests: Counter[str] = Counter()
        self.ranges: list[tuple[str, str | None]] = []  # (path, Range header) per request
        self.bytes_sent = 0
        self._count_lock = threading.Lock()  # handlers run in threads of their own
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.requests[self.path] += 1
                host.ranges.append((self.path, self.headers.get("Range")))
                if self.path.startswith("/redirect/"):
                    self.send_response(302)
                    self.send_header("Location", "/files/" + self.path.split("/", 2)[2])
                    self.end_headers()
                    return
                name = self.path.removeprefix("/files/")
                body = host.files.get(name)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                host.send_file(self, name, body)

            def log_message(self, *args: Any) -> None:
                pass

        self.host = HttpThread(Handler)

    def send_file(self, handler: BaseHTTPRequestHandler, name: str, body: bytes) -> None:
        match = _RANGE.match(handler.headers.get("Range") or "")
        start = int(match.group(1)) if match and self.honour_range else 0
        if start >= len(body) > 0:
            handler.send_error(416, "Range Not Satisfiable")
            return
        handler.send_response(206 if start else 200)
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        handler.send_header("Content-Length", str(len(body) - start))
        handler.end_headers()
        payload = body[start:]
        cut = self.cut_after.pop(name, None)
        if cut is not None:
            payload = payload[:cut]
            handler.close_connection = True
        # Counted before the write: a client that has read the last byte may check the count
        # before this handler thread runs again (seen: the 19-byte config.json not counted yet).
        with self._count_lock:
            self.bytes_sent += len(payload)
        handler.wfile.write(payload)
        handler.wfile.flush()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.host.port}{path}"

    def total_requests(self) -> int:
        return sum(self.requests.values())

    def __enter__(self) -> Self:
        self.host.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.host.stop()

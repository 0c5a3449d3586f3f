"""A real `websockets` client that stops reading: a 4 KiB receive buffer, a queue of one
message, and it never reads, so the server's writes to it wait (the progress-or-close tests
and the stalled-session metric's log lines)."""

from __future__ import annotations

import socket

from websockets.asyncio.client import ClientConnection, connect

# 232 characters: 4.6 s of tone audio at half speed, so a few dozen of them are far more
# audio than the loopback socket buffers hold.
STALLING_SENTENCE = ("A long sentence that goes on " * 8).strip() + "."


async def non_reader(url: str) -> ClientConnection:
    port = int(url.split(":")[2].split("/")[0])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return await connect(url, sock=sock, max_queue=1, close_timeout=0.1)

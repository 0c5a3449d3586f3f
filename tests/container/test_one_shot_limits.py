"""POST /invocations against callers who send too much or leave early (tone double, loopback).

Raw sockets, because an HTTP client library neither sends an unfinished chunked body nor
hangs up at a moment of the test's choosing. The server must answer 413 while the body is
still arriving (it read no more than its bound, not the whole body), refuse a declared
Content-Length over the bound without reading, and make no further model calls once the
caller hung up.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from kokoro_server.serving.app import MAX_BODY_BYTES

CHUNK = 64 * 1024
HEAD = "POST /invocations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def _connect(server: Any) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _read_response(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """Status and JSON body of the (small) answer, read until the body is complete."""
    data = b""
    while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < _length(data):
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body[: _length(data)])


def _length(data: bytes) -> int:
    for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


def _wait_until(predicate: Callable[[], bool], within_s: float = 20.0) -> None:
    deadline = time.monotonic() + within_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_chunked_body_over_the_bound_is_refused_while_it_still_arrives(tone_server):
    """8 MB of chunked body: the 413 must come before the client has sent it all."""
    total = 8 * 1024 * 1024
    chunk = f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n"
    with _connect(tone_server) as sock:
        sock.sendall((HEAD + "Transfer-Encoding: chunked\r\n\r\n").encode())
        sent = 0
        answered = False
        while sent < total:
            readable, writable, _ = select.select([sock], [sock], [], 10)
            if readable:
                answered = True
                break
            assert writable, "the server neither read nor answered"
            sock.sendall(chunk)
            sent += CHUNK
        if not answered:  # the server waited for the whole body: finish it to see its answer
            sock.sendall(b"0\r\n\r\n")
        status, body = _read_response(sock)
    print(f" 413 after {sent >> 10} KiB sent of {total >> 10} KiB", end="")
    assert status == 413
    assert body["error"]["code"] == "frame_too_large"
    assert answered, f"413 only after the whole {total} byte body was sent"
    # What the client got into the socket before the answer: the bound, one read of the
    # server, and what the two kernels' loopback buffers hold.
    assert sent < total


def test_declared_length_over_the_bound_is_refused_before_any_body(tone_server):
    with _connect(tone_server) as sock:
        head = HEAD + f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n"
        sock.sendall(head.encode())  # and not one byte of body: the server must not wait
        status, body = _read_response(sock)
    assert status == 413
    assert body == {
        "error": {"code": "frame_too_large", "message": f"body exceeds {MAX_BODY_BYTES} bytes"}
    }


def test_body_at_the_bound_is_still_read(tone_server):
    text = "Fits."
    padded = json.dumps({"text": text, "voice": "tone_low"}).encode()
    padded = padded[:-1] + b" " * (MAX_BODY_BYTES - len(padded)) + b"}"
    assert len(padded) == MAX_BODY_BYTES
    with _connect(tone_server) as sock:
        sock.sendall((HEAD + "Transfer-Encoding: chunked\r\n\r\n").encode())
        for i in range(0, len(padded), CHUNK):
            part = padded[i : i + CHUNK]
            sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 200 ")


@pytest.fixture
def counted_server(make_tone_server):
    """Tone double with 0.2 s of "inference" per sentence; counts the model calls started."""
    srv = make_tone_server(delay_s=0.2)
    engine = srv.app.state.service.engine
    calls = [0]
    lock = threading.Lock()
    original = engine.synthesize_timed

    def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            calls[0] += 1
        return original(*args, **kwargs)

    engine.synthesize_timed = counted
    srv.model_calls = lambda: calls[0]
    return srv


@pytest.mark.parametrize("abrupt", [False, True], ids=["fin", "tcp-reset"])
def test_caller_who_hangs_up_gets_no_more_model_calls(counted_server, abrupt, caplog):
    srv = counted_server
    service = srv.app.state.service
    caplog.set_level(logging.INFO, logger="kokoro.app")
    sentences = 30
    text = " ".join(f"This is sentence number {i}." for i in range(sentences))
    body = json.dumps({"text": text, "format": "pcm"}).encode()
    stopped_before = service.stopped_jobs
    sock = _connect(srv)
    sock.sendall((HEAD + f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    _wait_until(lambda: srv.model_calls() >= 3)  # well into the text
    if abrupt:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    at_hang_up = srv.model_calls()

    # Until the route gave up, or (without the fix) ran out every sentence.
    def gave_up() -> bool:
        return any(r.getMessage() == "one-shot caller left" for r in caplog.records)

    _wait_until(lambda: gave_up() or srv.model_calls() >= sentences)
    _wait_until(lambda: service.running == 0 and service.queued == 0)
    after = srv.model_calls()
    print(f" model calls: {at_hang_up} at hang-up, {after} in all (of {sentences})", end="")
    assert after <= at_hang_up + 1  # at most the one that started as the caller left
    # The sentence in progress was stopped, not run out (unless the hang-up fell between two).
    assert service.stopped_jobs > stopped_before or after == at_hang_up
    # The server still serves the next caller in full.
    with _connect(srv) as next_caller:
        short = json.dumps({"text": "Next one.", "format": "pcm"}).encode()
        next_caller.sendall((HEAD + f"Content-Length: {len(short)}\r\n\r\n").encode() + short)
        data = b""
        while b"\r\n\r\n" not in data:
            data += next_caller.recv(65536)
    assert data.startswith(b"HTTP/1.1 200 ")

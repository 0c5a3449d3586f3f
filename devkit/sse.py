"""A small incremental SSE parser for byte streams that httpx-sse cannot wrap.

boto3's `invoke_agent_runtime` returns a botocore StreamingBody; its chunks are network
chunks, not events. This parser reassembles events across any chunk boundary, including one
that falls inside a multi-byte UTF-8 character or between the CR and LF of a line ending.
(HTTP callers use httpx-sse instead.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


class SSEParser:
    """feed(chunk) -> completed events' data strings (multi-line data joined with \\n)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._data: list[str] = []
        self._skip_lf = False  # the previous chunk ended with CR; a leading LF belongs to it

    def feed(self, chunk: bytes) -> list[str]:
        if self._skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._skip_lf = False
        self._buf.extend(chunk)
        events: list[str] = []
        while True:
            cut = _line_end(self._buf)
            if cut is None:
                return events
            end, width = cut
            if width == 1 and self._buf[end] == 0x0D and end + 1 == len(self._buf):
                # A CR at the very end: the LF of a CRLF may be in the next chunk.
                self._skip_lf = True
            line = bytes(self._buf[:end]).decode("utf-8")
            del self._buf[: end + width]
            event = self._line(line)
            if event is not None:
                events.append(event)

    def _line(self, line: str) -> str | None:
        if line == "":
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return data
        if line.startswith(":"):
            return None  # comment / keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        return None  # event/id/retry fields are not used by this agent


def _line_end(buf: bytearray) -> tuple[int, int] | None:
    """Index and width of the first line terminator (CRLF, LF or CR)."""
    lf = buf.find(b"\n")
    cr = buf.find(b"\r")
    if lf == -1 and cr == -1:
        return None
    if cr == -1 or (lf != -1 and lf < cr):
        return lf, 1
    if cr + 1 < len(buf) and buf[cr + 1] == 0x0A:
        return cr, 2
    return cr, 1


def iter_sse_data(chunks: Iterable[bytes]) -> Iterator[str]:
    parser = SSEParser()
    for chunk in chunks:
        yield from parser.feed(chunk)

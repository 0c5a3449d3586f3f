"""Test-side Ogg reader written from RFC 3533 (pages) and RFC 7845 (Opus headers).

Independent of the server's code: it checks every page's CRC and reassembles packets from the
lacing values, so the tests can state the page structure a client relies on.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

BOS, EOS, CONTINUED = 0x02, 0x04, 0x01


def _crc_table() -> list[int]:
    # RFC 3533 section 6: CRC-32, generator 0x04c11db7, initial value 0, no reflection.
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return table


_TABLE = _crc_table()


def ogg_crc(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _TABLE[((crc >> 24) ^ byte) & 0xFF]
    return crc


@dataclass(frozen=True)
class Page:
    flags: int
    granule: int
    serial: int
    sequence: int
    lacing: tuple[int, ...]
    body: bytes
    raw: bytes

    @property
    def packets(self) -> list[bytes]:
        """Packets completed on this page (a lacing value < 255 ends a packet)."""
        out, start, pos = [], 0, 0
        for value in self.lacing:
            pos += value
            if value < 255:
                out.append(self.body[start:pos])
                start = pos
        return out


def parse_page(data: bytes) -> Page:
    """Exactly one page; raises AssertionError on anything RFC 3533 does not allow."""
    assert data[:4] == b"OggS", "capture pattern"
    version, flags, granule, serial, sequence, crc, count = struct.unpack_from("<BBqIIIB", data, 4)
    assert version == 0, "stream structure version"
    lacing = tuple(data[27 : 27 + count])
    size = 27 + count + sum(lacing)
    assert len(data) == size, f"page of {len(data)} bytes, header says {size}"
    assert ogg_crc(data[:22] + b"\0\0\0\0" + data[26:]) == crc, "page checksum"
    return Page(flags, granule, serial, sequence, lacing, data[27 + count :], data)


def parse_pages(data: bytes) -> list[Page]:
    pages, offset = [], 0
    while offset < len(data):
        count = data[offset + 26]
        size = 27 + count + sum(data[offset + 27 : offset + 27 + count])
        pages.append(parse_page(data[offset : offset + size]))
        offset += size
    return pages


@dataclass(frozen=True)
class OpusHead:
    version: int
    channels: int
    pre_skip: int
    input_rate: int
    gain: int
    mapping: int


def opus_head(packet: bytes) -> OpusHead:
    assert packet[:8] == b"OpusHead", "identification header magic"
    return OpusHead(*struct.unpack_from("<BBHIhB", packet, 8))

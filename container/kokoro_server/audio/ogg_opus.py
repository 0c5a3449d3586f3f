"""Ogg Opus (RFC 7845) through PyAV: libopus for the codec, FFmpeg's Ogg muxer for the pages.

Each call makes one complete logical stream (OpusHead page, OpusTags page, audio pages, a last
page flagged end-of-stream whose granule position trims the padding), so every sentence plays
on its own and a client that appends sentences stores a chained Ogg file (RFC 3533 section 4).
Pages hold about PAGE_MS of audio: a client can decode the first page while the rest of the
sentence is still on its way, at a cost of about 28 header bytes per page.
"""

from __future__ import annotations

import io
from fractions import Fraction

import av
import numpy as np

INPUT_RATE = 24_000  # Kokoro's own rate; libopus takes 8/12/16/24/48 kHz input
DECODE_RATE = 48_000  # what an Ogg Opus decoder outputs (RFC 7845 section 5.1)
BITRATE = 24_000  # RFC 7587's range for super-wideband speech; measured in docs/container.md
FRAME_MS = 20
PAGE_MS = 100
CONTENT_TYPE = "audio/ogg; codecs=opus"


def encode(pcm: bytes, rate: int = INPUT_RATE) -> list[bytes]:
    """16-bit little-endian mono PCM -> the Ogg pages of one complete Ogg Opus stream."""
    if not pcm:
        return []  # no audio, no stream: a decoder would reject a stream without packets
    out = io.BytesIO()
    options = {"page_duration": str(PAGE_MS * 1000)}  # microseconds
    with av.open(out, "w", format="ogg", options=options) as container:
        stream = container.add_stream("libopus", rate=rate, layout="mono")
        stream.bit_rate = BITRATE
        # "audio" keeps the waveform (and so the voice) closer than "voip", which filters for
        # intelligibility of live microphones: correlation 0.98 vs 0.97 at this bitrate.
        stream.codec_context.options = {"application": "audio", "frame_duration": str(FRAME_MS)}
        samples = np.frombuffer(pcm, dtype="<i2").reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = rate
        # Timestamps from zero let the encoder place its pre-skip before the first sample, so
        # the last page's granule position trims the stream to exactly the input's length.
        frame.pts = 0
        frame.time_base = Fraction(1, rate)
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            container.mux(packet)
    return split_pages(out.getvalue())


def split_pages(data: bytes) -> list[bytes]:
    """Cut an Ogg byte stream at its page boundaries (RFC 3533 section 6 header layout)."""
    pages = []
    offset = 0
    while offset < len(data):
        if data[offset : offset + 4] != b"OggS" or offset + 27 > len(data):
            raise ValueError(f"no Ogg page at byte {offset}")
        segments = data[offset + 26]
        header = 27 + segments
        size = header + sum(data[offset + 27 : offset + header])
        if offset + size > len(data):
            raise ValueError(f"Ogg page at byte {offset} is cut short")
        pages.append(data[offset : offset + size])
        offset += size
    return pages

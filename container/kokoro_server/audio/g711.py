"""G.711 mu-law / A-law at 8 kHz (FFmpeg's encoders through PyAV), and fixed-size framing.

The encoders are FFmpeg's `pcm_mulaw` / `pcm_alaw`: table-driven, nearest-level quantization
of 16-bit PCM (checked against libsndfile's independent decoder in the tests). One byte per
sample, so a frame of N ms at 8 kHz is 8 * N bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import av
import numpy as np

RATE = 8000
LAWS = {"ulaw": "pcm_mulaw", "alaw": "pcm_alaw"}
# The code each law assigns to a zero sample: what a padded frame is completed with.
SILENCE = {"ulaw": b"\xff", "alaw": b"\xd5"}
FRAME_MS = (10, 20, 30, 40, 60)  # the RTP packet times telephony gear uses; 20 ms is the norm


def encode(pcm: bytes, law: str) -> bytes:
    """16-bit little-endian mono PCM at 8 kHz -> one G.711 byte per sample."""
    if not pcm:
        return b""
    context = av.CodecContext.create(LAWS[law], "w")
    # PyAV types create() by codec name for a closed list that omits the pcm_* codecs.
    assert isinstance(context, av.AudioCodecContext)
    context.sample_rate = RATE
    context.layout = "mono"
    context.format = "s16"
    samples = np.frombuffer(pcm, dtype="<i2").reshape(1, -1)
    frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
    frame.sample_rate = RATE
    packets = [*context.encode(frame), *context.encode(None)]
    return b"".join(bytes(packet) for packet in packets)


def frame_bytes(frame_ms: int) -> int:
    return RATE * frame_ms // 1000


@dataclass
class FrameCarry:
    """Cuts a session's G.711 audio into frames of exactly `frame_bytes`, across sentences.

    A sentence rarely ends on a frame boundary. Padding every sentence's last frame with
    silence would add up to one frame per sentence (seconds over a long session); instead the
    remainder is carried into the next sentence's first frame when that sentence is already
    queued, and padded with silence only when nothing follows (flush, close, the queue ran dry
    or the format changes). So a session's length matches its PCM within one frame per pause.
    """

    key: object = None
    tail: bytes = b""

    def cut(self, key: object, data: bytes, size: int, law: str, more: bool) -> bytes:
        """Whole frames of `data` (after any carried tail); keeps the rest if `more` follows."""
        if key != self.key:  # another generation (a cancel) or framing: the old tail is void
            self.key, self.tail = key, b""
        data = self.tail + data
        whole = len(data) - len(data) % size
        if more:
            self.tail = data[whole:]
            return data[:whole]
        self.tail = b""
        return data + SILENCE[law] * (-len(data) % size)

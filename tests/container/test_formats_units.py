"""G.711 and Ogg Opus encoding, checked with decoders that are not the encoder's library.

The server encodes with PyAV (FFmpeg's G.711 tables, libopus, FFmpeg's Ogg muxer); these tests
decode with libsndfile (soundfile: its own G.711 code, libogg), and read Ogg pages with the
test-side reader in ogg_pages.py, written from the RFCs.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from kokoro_server.audio import encoding as audio
from kokoro_server.audio import g711, ogg_opus
from kokoro_server.serving import protocol
from kokoro_server.serving.protocol import Options, ProtocolError
from tests.support.ogg_pages import BOS, EOS, opus_head, parse_page, parse_pages

SUBTYPES = {"ulaw": "ULAW", "alaw": "ALAW"}
# 16-bit PCM enters G.711 as 14-bit (mu-law) / 13-bit (A-law) linear: the low bits are dropped,
# so a sample up to GRANULE - 1 away from a decision level may land on its far side, where the
# error exceeds the nearest level's by at most twice that.
GRANULE = {"ulaw": 4, "alaw": 8}


def decode_g711(data: bytes, law: str) -> np.ndarray:
    samples, _ = sf.read(
        io.BytesIO(data),
        format="RAW",
        subtype=SUBTYPES[law],
        samplerate=8000,
        channels=1,
        dtype="int16",
    )
    return samples.astype(np.int64)


def decode_ogg(data: bytes) -> tuple[np.ndarray, int]:
    samples, rate = sf.read(io.BytesIO(data), dtype="float32")
    return samples, rate


def sine(freq: float, seconds: float, amplitude: float, rate: int = 24000) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


# ---- G.711 ------------------------------------------------------------------------------


@pytest.mark.parametrize("law", ["ulaw", "alaw"])
def test_g711_quantizes_every_16_bit_sample_to_its_nearest_level(law):
    every = np.arange(-32768, 32768, dtype="<i2")
    decoded = decode_g711(g711.encode(every.tobytes(), law), law)
    levels = np.unique(decode_g711(bytes(range(256)), law))
    assert decoded.size == every.size
    assert np.all(np.diff(decoded) >= 0), "the quantizer must be monotonic"
    source = every.astype(np.int64)
    above = np.clip(np.searchsorted(levels, source), 0, levels.size - 1)
    below = np.clip(above - 1, 0, levels.size - 1)
    nearest = np.minimum(np.abs(levels[above] - source), np.abs(levels[below] - source))
    error = np.abs(decoded - source)
    assert int((error - nearest).max()) <= 2 * (GRANULE[law] - 1)


@pytest.mark.parametrize("law", ["ulaw", "alaw"])
def test_g711_padding_byte_is_what_silence_encodes_to(law):
    assert g711.encode(bytes(8), law) == g711.SILENCE[law] * 4
    # A-law has no zero level: its silence is the smallest one, +8 of 32768.
    assert np.abs(decode_g711(g711.SILENCE[law], law)).max() <= 8


@pytest.mark.parametrize("fmt", ["ulaw", "alaw"])
def test_g711_clips_instead_of_wrapping(fmt):
    loud = sine(300, 0.5, 1.8)  # 80% over full scale
    decoded = decode_g711(audio.encode(loud, fmt, 8000).data, fmt) / 32768
    reference = np.clip(sine(300, 0.5, 1.8, rate=8000), -1, 1)
    n = min(decoded.size, reference.size)
    # A wrap would flip the sign of the loudest samples; clipping keeps them at the rails.
    peaks = np.abs(reference[:n]) > 0.99
    assert np.all(np.sign(decoded[:n][peaks]) == np.sign(reference[:n][peaks]))
    assert np.abs(decoded[:n][peaks]).min() > 0.9


def test_g711_resampling_filters_what_8_khz_cannot_carry():
    # 5 kHz is above 8 kHz's Nyquist: without an anti-aliasing filter it folds to 3 kHz.
    high = sine(5000, 1.0, 0.5)
    speech_band = sine(1000, 1.0, 0.5)
    rms = {
        name: float(
            np.sqrt(np.mean((decode_g711(audio.encode(s, "ulaw", 8000).data, "ulaw")) ** 2))
        )
        for name, s in (("high", high), ("band", speech_band))
    }
    assert rms["band"] > 100 * rms["high"]


def test_g711_output_has_one_byte_per_8_khz_sample():
    one_second = sine(440, 1.0, 0.3)
    assert len(audio.encode(one_second, "alaw", 8000).data) == 8000


def test_frame_carry_cuts_exact_frames_and_carries_the_rest():
    carry = g711.FrameCarry()
    first = carry.cut("k", b"a" * 250, 160, "ulaw", more=True)
    second = carry.cut("k", b"b" * 100, 160, "ulaw", more=False)
    assert first == b"a" * 160
    # The 90 carried bytes lead the next sentence; the end is padded with mu-law silence.
    assert second == b"a" * 90 + b"b" * 70 + b"b" * 30 + b"\xff" * 130
    assert carry.tail == b""


def test_frame_carry_drops_a_tail_of_another_generation_or_framing():
    carry = g711.FrameCarry()
    carry.cut(("gen", 0), b"a" * 170, 160, "alaw", more=True)
    assert carry.cut(("gen", 1), b"b" * 160, 160, "alaw", more=False) == b"b" * 160


# ---- Ogg Opus ---------------------------------------------------------------------------


def opus_pages(seconds: float) -> list[bytes]:
    pcm = audio.to_pcm16(sine(220, seconds, 0.4) if seconds else np.zeros(0, np.float32))
    return ogg_opus.encode(pcm)


def test_ogg_opus_pages_follow_rfc_3533_and_7845():
    pages = [parse_page(p) for p in opus_pages(2.0)]
    assert [p.sequence for p in pages] == list(range(len(pages)))
    assert len({p.serial for p in pages}) == 1
    assert pages[0].flags == BOS and all(p.flags & BOS == 0 for p in pages[1:])
    assert pages[-1].flags & EOS and all(p.flags & EOS == 0 for p in pages[:-1])
    # Page 0: only the identification header; page 1: only the comment header.
    assert pages[0].packets == [pages[0].body] and pages[0].granule == 0
    head = opus_head(pages[0].body)
    assert (head.version, head.channels, head.input_rate, head.mapping) == (1, 1, 24000, 0)
    assert pages[1].packets[0][:8] == b"OpusTags" and pages[1].granule == 0
    granules = [p.granule for p in pages[2:]]
    assert granules == sorted(granules)
    # Audio pages hold about PAGE_MS each (granules count 48 kHz samples), not one big page.
    steps = np.diff([0, *granules])[1:-1]
    assert np.all(steps == ogg_opus.PAGE_MS * 48)


@pytest.mark.parametrize("samples", [1, 480, 600, 24000, 78000])
def test_ogg_opus_last_granule_trims_to_the_exact_input_length(samples):
    """Regression: frames without timestamps made FFmpeg count the pre-skip twice, so every
    stream claimed 312 samples (6.5 ms) more than its input."""
    pcm = audio.to_pcm16(sine(300, samples / 24000, 0.3)[:samples])
    assert len(pcm) == 2 * samples
    pages = [parse_page(p) for p in ogg_opus.encode(pcm)]
    head = opus_head(pages[0].body)
    assert pages[-1].granule - head.pre_skip == 2 * samples  # RFC 7845 section 4.5
    decoded, rate = decode_ogg(b"".join(p.raw for p in pages))
    assert (rate, decoded.size) == (24000, samples)


def test_ogg_opus_of_no_audio_is_no_stream():
    assert opus_pages(0) == []


def test_ogg_opus_clips_instead_of_wrapping():
    loud = sine(300, 0.5, 1.8)
    decoded, _ = decode_ogg(audio.encode(loud, "opus", 48000).data)
    reference = np.clip(loud, -1, 1)
    peaks = np.abs(reference) > 0.99
    assert np.corrcoef(decoded, reference)[0, 1] > 0.95
    assert np.all(np.sign(decoded[peaks]) == np.sign(reference[peaks]))


def test_opus_frames_are_whole_pages_and_the_first_carries_the_headers_and_audio():
    encoded = audio.encode(sine(200, 1.0, 0.3), "opus", 48000)
    frames = list(audio.frames(encoded.data, encoded.frame_sizes, max_bytes=64))
    assert b"".join(frames) == encoded.data
    first = parse_pages(frames[0])
    assert [p.granule > 0 for p in first] == [False, False, True]
    assert all(len(parse_pages(frame)) == 1 for frame in frames[1:])
    # Every prefix of whole frames is a stream libsndfile decodes: what a cancel leaves.
    for cut in range(1, len(frames) + 1):
        decoded, _ = decode_ogg(b"".join(frames[:cut]))
        assert decoded.size > 0


def test_split_pages_rejects_a_cut_stream():
    pages = opus_pages(1.0)
    with pytest.raises(ValueError, match="cut short"):
        ogg_opus.split_pages(b"".join(pages)[:-1])


# ---- option combinations ----------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        Options(format="ulaw"),
        Options(format="alaw", sample_rate=8000, frame_ms=20),
        Options(format="ulaw", frame_ms=0),
        Options(format="opus"),
        Options(format="opus", sample_rate=48000),
        Options(format="mp3", sample_rate=22050),
        Options(format="pcm", frame_ms=0),
    ],
)
def test_valid_combinations(options):
    protocol.check_combination(options)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (Options(format="ulaw", sample_rate=24000), "ulaw needs sample_rate 8000"),
        (Options(format="alaw", sample_rate=16000), "alaw needs sample_rate 8000"),
        (Options(format="opus", sample_rate=24000), "opus needs sample_rate 48000"),
        (Options(format="pcm", sample_rate=48000), "pcm needs sample_rate"),
        (Options(format="opus", frame_ms=20), "frame_ms applies to ulaw and alaw only"),
        (Options(format="pcm", frame_ms=20), "frame_ms applies to ulaw and alaw only"),
    ],
)
def test_bad_combinations_are_bad_parameter(options, says):
    with pytest.raises(ProtocolError, match=says) as err:
        protocol.check_combination(options)
    assert err.value.code == "bad_parameter"


@pytest.mark.parametrize("frame_ms", [True, 15, "20", -20, 20.5, 1000])
def test_frame_ms_outside_the_rtp_packet_times_is_bad_parameter(frame_ms):
    with pytest.raises(ProtocolError) as err:
        protocol.parse_message({"type": "start", "frame_ms": frame_ms}, 100)
    assert err.value.code == "bad_parameter"


def test_effective_rate_is_the_formats_default_unless_asked():
    rates = [protocol.effective_rate(Options(format=f)) for f in ("pcm", "ulaw", "opus")]
    assert rates == [24000, 8000, 48000]
    assert protocol.effective_rate(Options(format="pcm", sample_rate=16000)) == 16000

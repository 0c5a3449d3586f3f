"""Codec libraries side by side on the real model's audio: how the server's encoders were chosen.

For each sentence of the benchmark paragraph (real Kokoro-82M on CPU, synthesized once), every
candidate encodes the same 16-bit PCM; the table gives encode time (median, p95 over sentences
x repeats), the bitrate, and the correlation of the decoded audio with the PCM, decoded by the
other library than the one that encoded (libsndfile for PyAV's output and the reverse).
G.711 rows also give the worst distance from the nearest quantization level over all 65,536
16-bit inputs (a nearest-level quantizer is within a few units; the low bits G.711 drops).

    python -m bench.codecs [--repeats 5]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from typing import Any

import av
import numpy as np
import soundfile as sf

from bench.common import read_paragraph
from bench.engine_bench import load_engine
from bench.stats import summarize
from bench.tables import Table, format_text
from kokoro_server.audio import encoding as audio
from kokoro_server.audio import g711, ogg_opus

Encoder = Callable[[bytes, int], bytes]


def pyav_opus(bitrate: int, application: str) -> Encoder:
    def encode(pcm: bytes, rate: int) -> bytes:
        out = io.BytesIO()
        with av.open(out, "w", format="ogg", options={"page_duration": "100000"}) as container:
            stream = container.add_stream("libopus", rate=rate, layout="mono")
            stream.bit_rate = bitrate
            stream.codec_context.options = {"application": application, "frame_duration": "20"}
            frame = av.AudioFrame.from_ndarray(
                np.frombuffer(pcm, "<i2").reshape(1, -1), format="s16", layout="mono"
            )
            frame.sample_rate = rate
            for packet in [*stream.encode(frame), *stream.encode(None)]:
                container.mux(packet)
        return out.getvalue()

    return encode


def libsndfile_encode(fmt: str, subtype: str) -> Encoder:
    def encode(pcm: bytes, rate: int) -> bytes:
        out = io.BytesIO()
        sf.write(out, np.frombuffer(pcm, "<i2"), rate, format=fmt, subtype=subtype)
        return out.getvalue()

    return encode


def decode_with_pyav(data: bytes) -> np.ndarray:
    with av.open(io.BytesIO(data)) as container:
        chunks = [f.to_ndarray().reshape(-1) for f in container.decode(audio=0)]
    return np.concatenate(chunks).astype(np.float64) * 32768  # Opus decodes to float


def decode_with_libsndfile(data: bytes, law: str | None = None) -> np.ndarray:
    if law:
        raw = {"format": "RAW", "subtype": law, "samplerate": 8000, "channels": 1}
        return sf.read(io.BytesIO(data), dtype="int16", **raw)[0].astype(np.float64)
    return sf.read(io.BytesIO(data), dtype="int16")[0].astype(np.float64)


def best_correlation(reference: np.ndarray, decoded: np.ndarray, max_lag: int = 4) -> float:
    best = -1.0
    for lag in range(-max_lag, max_lag + 1):
        a = reference[max(0, -lag) : len(reference) - max(0, lag)]
        b = decoded[max(0, lag) : max(0, lag) + len(a)]
        n = min(len(a), len(b))
        best = max(best, float(np.corrcoef(a[:n], b[:n])[0, 1]))
    return best


def nearest_level_excess(encode: Callable[[bytes], bytes], law: str) -> int:
    """Worst extra error over a nearest-level quantizer, all 16-bit inputs (libsndfile decodes)."""
    every = np.arange(-32768, 32768, dtype="<i2")
    decoded = decode_with_libsndfile(encode(every.tobytes()), law).astype(np.int64)
    levels = np.unique(decode_with_libsndfile(bytes(range(256)), law).astype(np.int64))
    source = every.astype(np.int64)
    above = np.clip(np.searchsorted(levels, source), 0, levels.size - 1)
    below = np.clip(above - 1, 0, levels.size - 1)
    nearest = np.minimum(np.abs(levels[above] - source), np.abs(levels[below] - source))
    return int((np.abs(decoded - source) - nearest).max())


def candidates() -> list[dict[str, Any]]:
    """(label, PCM rate, encoder, independent decoder, law) for every library and setting."""
    opus_rate = ogg_opus.INPUT_RATE
    rows: list[dict[str, Any]] = []
    for bitrate, application in ((24000, "audio"), (24000, "voip"), (32000, "audio")):
        rows.append(
            {
                "label": f"PyAV libopus {bitrate // 1000}k {application} (Ogg, 100 ms pages)",
                "rate": opus_rate,
                "encode": pyav_opus(bitrate, application),
                "decode": decode_with_libsndfile,
            }
        )
    rows.append(
        {
            "label": "libsndfile Ogg Opus (default level)",
            "rate": opus_rate,
            "encode": libsndfile_encode("OGG", "OPUS"),
            "decode": decode_with_pyav,
            "resample": 2,  # PyAV decodes at 48 kHz; the reference is 24 kHz
        }
    )
    for law, subtype in (("ulaw", "ULAW"), ("alaw", "ALAW")):
        rows.append(
            {
                "label": f"PyAV {g711.LAWS[law]}",
                "rate": 8000,
                "encode": lambda pcm, _rate, law=law: g711.encode(pcm, law),
                "decode": lambda data, subtype=subtype: decode_with_libsndfile(data, subtype),
                "law": subtype,
            }
        )
        rows.append(
            {
                "label": f"libsndfile RAW {subtype}",
                "rate": 8000,
                "encode": libsndfile_encode("RAW", subtype),
                "decode": lambda data, law=law: decode_with_pyav_raw(data, law),
                "law": subtype,
            }
        )
    return rows


def decode_with_pyav_raw(data: bytes, law: str) -> np.ndarray:
    context = av.CodecContext.create(g711.LAWS[law], "r")
    context.sample_rate, context.layout = 8000, "mono"
    frames = context.decode(av.Packet(data))
    return np.concatenate([f.to_ndarray().reshape(-1) for f in frames]).astype(np.float64)


def measure(sentences: list[np.ndarray], repeats: int) -> Table:
    rows = []
    for c in candidates():
        times, sizes, seconds, correlations = [], 0, 0.0, []
        for samples in sentences:
            pcm = audio.to_pcm16(samples, c["rate"])
            for _ in range(repeats):
                started = time.perf_counter()
                data = c["encode"](pcm, c["rate"])
                times.append(time.perf_counter() - started)
            reference = np.frombuffer(pcm, "<i2").astype(np.float64)
            decoded = c["decode"](data)
            if c.get("resample"):
                decoded = decoded[:: c["resample"]]
            correlations.append(best_correlation(reference, decoded))
            sizes += len(data)
            seconds += samples.size / 24000
        timing = summarize(times)
        excess = "-"
        if c.get("law"):
            law = "ulaw" if c["law"] == "ULAW" else "alaw"
            excess = str(nearest_level_excess(lambda pcm, c=c: c["encode"](pcm, 8000), law))
        rows.append(
            [
                c["label"],
                f"{timing['median'] * 1000:.2f}",
                f"{timing['p95'] * 1000:.2f}",
                f"{sizes * 8 / seconds / 1000:.1f}",
                f"{min(correlations):.4f}",
                excess,
            ]
        )
    headers = [
        "encoder",
        "encode ms median",
        "encode ms p95",
        "kbit/s",
        "min correlation",
        "max excess over nearest level",
    ]
    title = f"Per sentence ({len(sentences)} sentences x {repeats} repeats)"
    return Table(title, headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.codecs", description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    engine = load_engine()
    texts = [t for t in read_paragraph().split(". ") if t]
    sentences = [engine.synthesize(text, engine.default_voice) for text in texts]
    print(f"{len(sentences)} sentences, {sum(s.size for s in sentences) / 24000:.1f} s of audio")
    print(format_text(measure(sentences, args.repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

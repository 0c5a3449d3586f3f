"""Listen and look: a before/after sample pair and a plot of the waveform envelope.

Used by bench/peer_pacing.py (`--samples DIR`): the clips are Ogg Opus (the server's own
encoder, 24 kbps) cut at the end of the last pause that fits in the asked length, so no word
is cut; the plot shows each stream's envelope (RMS per 10 ms, dBFS), the -50 dBFS line the
server trims by, and every pause of at least 150 ms shaded with its length.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after use("Agg"): the backend must be chosen first

from bench.audible import THRESHOLD_DBFS, WINDOW_MS

ENVELOPE_MS = 10.0
MIN_PAUSE_S = 0.15


def _floats(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float32) / 32767.0


def envelope_dbfs(pcm: bytes, sample_rate: int, window_ms: float = ENVELOPE_MS) -> np.ndarray:
    samples = _floats(pcm)
    window = max(1, round(sample_rate * window_ms / 1000))
    count = samples.size // window
    power = np.mean(samples[: count * window].reshape(count, window) ** 2, axis=1)
    return np.asarray(10.0 * np.log10(np.maximum(power, 1e-10)))


def silences(pcm: bytes, sample_rate: int) -> list[tuple[float, float]]:
    """(start_s, end_s) of every inaudible run of at least MIN_PAUSE_S between sounds."""
    level = envelope_dbfs(pcm, sample_rate, WINDOW_MS)
    loud = np.flatnonzero(level >= THRESHOLD_DBFS)
    step = WINDOW_MS / 1000
    return [
        ((a + 1) * step, b * step) for a, b in pairwise(loud) if (b - a - 1) * step >= MIN_PAUSE_S
    ]


def opus_clip(pcm: bytes, path: Path, seconds: float, sample_rate: int = 24_000) -> None:
    """The first `seconds` (or up to the end of the last pause inside them) as Ogg Opus."""
    from kokoro_server.audio.encoding import encode

    ends = [end for _, end in silences(pcm, sample_rate) if end <= seconds]
    cut = ends[-1] if ends else seconds
    samples = _floats(pcm)[: round(cut * sample_rate)]
    path.write_bytes(encode(samples, "opus", 48_000).data)


def envelope_plot(path: Path, streams: Sequence[tuple[str, bytes]], sample_rate: int) -> None:
    fig, axes = plt.subplots(len(streams), 1, figsize=(12, 2.4 * len(streams)), sharex=True)
    for ax, (label, pcm) in zip(np.atleast_1d(axes), streams, strict=True):
        level = envelope_dbfs(pcm, sample_rate)
        times = np.arange(level.size) * ENVELOPE_MS / 1000
        ax.plot(times, level, color="tab:blue", linewidth=0.8)
        ax.axhline(THRESHOLD_DBFS, color="tab:red", linewidth=0.8, linestyle="--")
        for start, end in silences(pcm, sample_rate):
            ax.axvspan(start, end, color="tab:orange", alpha=0.25)
            ax.text((start + end) / 2, -8, f"{(end - start) * 1000:.0f}", ha="center", fontsize=7)
        duration = len(pcm) / 2 / sample_rate
        ax.set_title(f"{label}: {duration:.2f} s", fontsize=9, loc="left")
        ax.set_ylim(-90, 0)
        ax.set_ylabel("dBFS")
    np.atleast_1d(axes)[-1].set_xlabel(
        "seconds (blue: RMS per 10 ms; red: -50 dBFS; shaded: pauses >= 150 ms, in ms)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)

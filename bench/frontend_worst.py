"""The text front end's worst cases: hostile sentence shapes up to the segmenter's cap.

    python -m bench.frontend_worst [--runs 5] [--lengths 60,125,250]

Each shape (a 300-digit price after a form espeak-ng reads as several words, "1e999999"
repeated, "1e" and a digit run, unspaced letters, short words espeak-ng merges, Japanese and
Mandarin with Latin runs) is cut to each length, at most `Settings.max_segment_chars` (the
longest sentence the segmenter lets through), and goes through the server's TextFrontend
`runs` times after a warm-up. Prints the median and p95 wall time per shape and length, in
milliseconds.
"""

from __future__ import annotations

import argparse
import time

from bench.stats import median, percentile
from devkit.speech_corpus import load_frontend
from kokoro_server.config import Settings

# shape name -> (voice, a unit repeated up to the length)
SHAPES = {
    "price digit run": ("af_heart", "Cost 1e999999 or $" + "9" * 400),
    "1e999999 forms": ("af_heart", "1e999999 "),
    "1e + digits": ("af_heart", "1e" + "9" * 400),
    "unspaced letters": ("af_heart", "qwertyuiopasdfghjklzxcvbnm"),
    "merged short words": ("af_heart", "for the out of to be a "),
    "digits, spaced": ("af_heart", "9 "),
    "ja + Latin": ("jf_alpha", "日本語のテキストabc1e999999 "),
    "zh + Latin": ("zf_xiaoxiao", "中文文本abc1e999999 "),
}


def sentence(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.frontend_worst", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lengths", default="60,125,250")
    args = parser.parse_args(argv)
    cap = Settings().max_segment_chars
    lengths = [min(int(n), cap) for n in args.lengths.split(",")]
    frontend = load_frontend()
    print(f"{'shape':<20} {'chars':>5} {'median ms':>10} {'p95 ms':>8}")
    for name, (voice, unit) in SHAPES.items():
        for length in lengths:
            text = sentence(unit, length)
            frontend(text, voice)  # warm-up: the language's G2P loads on first use
            samples = []
            for _ in range(args.runs):
                start = time.perf_counter()
                frontend(text, voice)
                samples.append((time.perf_counter() - start) * 1000)
            print(
                f"{name:<20} {len(text):>5} {median(samples):>10.1f} "
                f"{percentile(samples, 95):>8.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

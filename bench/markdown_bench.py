"""What the speech front end costs per sentence: markdown (with cleaning and emoji), the
sentence segmenter, and the G2P front end (normalization + phonemes), on assistant-style
markdown answers streamed in 7-character deltas, the way the session runs them.

The markdown and segmenter time spent between two releases is charged to the sentences the
release completes; the G2P time is that sentence's own call. Budget: the whole
front end at most 10 ms p95 per sentence on this CPU.

    python -m bench.markdown_bench [--runs 5] [--no-g2p]

Times are wall-clock (perf_counter) by default; on a loaded machine the p95 then carries
scheduling delays, so the load average is printed with the table. `--clock cpu` measures
this thread's CPU time instead (what the work costs, whatever else runs).

The G2P column needs the model's vocabulary (the weights directory, KOKORO_MODEL_DIR or the
packaged int8 model); --no-g2p measures the markdown step alone.
"""

from __future__ import annotations

import argparse
import os
import time

from bench.stats import summarize
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.segmenter import SentenceSegmenter

VOICE = "af_heart"
clock = time.perf_counter  # --clock cpu: this thread's CPU time, blind to other processes
ANSWERS = [
    "# Getting started 🚀\n\nWelcome! See [the setup page](/docs/setup) before you start.\n\n"
    "## Steps\n1. Install it with `pip install kokoro`.\n2. Run **the server**, then *open* "
    "the page.\n- Check the \x1b[31mlogs\x1b[0m too 👍\n\nThat's all 🎉",
    "Great question! Here's a quick comparison:\n\n| Plan | Price | Seats |\n|---|---:|---:|\n"
    "| Basic | $9.99 | 1 |\n| Team | $29.99 | 5 |\n\n**Tip:** the *Team* plan pays off "
    "from three seats. Read more in the [pricing FAQ](https://example.com/pricing#faq).",
    "To fix the error, update the config:\n\n```yaml\nserver:\n  port: 8080\n```\n\nThen "
    "restart with `systemctl restart app`. If it still fails, check `journalctl -u app` "
    "and look for lines starting with **ERROR**. ✅ That usually does it.",
    "> Note: this applies to version 2.3 and later.\n\nThe main points are:\n\n"
    "- **Speed**: responses start in about 150 ms.\n- **Cost**: roughly $1.41 per hour.\n"
    "- **Scale**: autoscaling on concurrency, up to 4 instances.\n\nLet me know if you "
    "want the details! 😊",
    "Sure. Dr. Smith's office opens at 10:30 a.m. on weekdays; call 555-123-4567 or e-mail "
    "<office@example.com>. The address is 221B Baker St., London. Parking costs about "
    "£2.50 an hour, and the nearest station is 5 minutes away on foot.",
]


def measure(runs: int, g2p: bool) -> dict[str, list[float]]:
    phonemize = None
    if g2p:
        from kokoro_server.config import Settings
        from kokoro_server.engine.model_files import locate
        from kokoro_server.serving.synthesis import build_frontend

        settings = Settings.from_env()
        files = locate(settings.model_dir, settings.model_file)
        phonemize = build_frontend(settings, files.vocab)
        phonemize("Warm up the G2P.", VOICE)
    samples: dict[str, list[float]] = {"markdown": [], "segmenter": [], "g2p": [], "total": []}
    MarkdownSpeech().convert(ANSWERS[0])  # first calls build markdown-it's and emoji's tables
    for _ in range(runs):
        for answer in ANSWERS:
            md = MarkdownSpeech()
            seg = SentenceSegmenter(first_clause=True, first_clause_min_chars=20, max_chars=250)
            spent_md = spent_seg = 0.0
            deltas = [answer[i : i + 7] for i in range(0, len(answer), 7)]
            for delta in [*deltas, None]:
                started = clock()
                plain = md.feed(delta) if delta is not None else md.flush()
                middle = clock()
                pieces = seg.feed(plain) if delta is not None else seg.feed(plain) + seg.flush()
                done = clock()
                spent_md += middle - started
                spent_seg += done - middle
                if not pieces:
                    continue
                for piece in pieces:
                    g2p_s = 0.0
                    if phonemize is not None:
                        t0 = clock()
                        phonemize(piece, VOICE)
                        g2p_s = clock() - t0
                    share_md, share_seg = spent_md / len(pieces), spent_seg / len(pieces)
                    samples["markdown"].append(share_md * 1000)
                    samples["segmenter"].append(share_seg * 1000)
                    samples["g2p"].append(g2p_s * 1000)
                    samples["total"].append((share_md + share_seg + g2p_s) * 1000)
                spent_md = spent_seg = 0.0
    if phonemize is None:
        del samples["g2p"]
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-g2p", action="store_true", help="markdown and segmenter only")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    global clock
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    load = os.getloadavg()[0]
    samples = measure(args.runs, g2p=not args.no_g2p)
    print(
        f"front end per sentence, {len(ANSWERS)} answers x {args.runs} runs, 7-char deltas, "
        f"{args.clock} clock"
    )
    print(f"load average (1 min) at start: {load:.2f}; cores: {os.cpu_count()}")
    print(f"{'step':<10} {'n':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    for step, values in samples.items():
        s = summarize(values)
        print(f"{step:<10} {s['n']:>5.0f} {s['median']:>10.3f} {s['p95']:>8.3f} {s['max']:>8.3f}")
    print(f"budget: 10 ms p95 per sentence (total); load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

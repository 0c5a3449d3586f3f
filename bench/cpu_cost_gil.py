"""Which CPU stages of the server let other threads of its process run meanwhile (the GIL).

    python -m bench.cpu_cost_gil [--repeats 5]

The server is one Python process: its event loop and its synthesis workers share one
interpreter lock. A stage whose C library releases the lock (zlib, a ctypes call, most of
numpy on large arrays) lets the other threads run on another core; one that holds it (a C
extension that keeps the lock) stops them until it returns; Python code hands the lock over
every switch interval (5 ms), so the others get a turn but never a second core.

For each stage a monitor thread wakes every millisecond (a 1 ms sleep, which needs the lock
to wake from) while this thread runs the stage once. Reported: how long the stage took, the
monitor's wake-ups as a share of its rate when the process is idle (about 1: the lock stayed
free, about 0.2: Python code taking turns, about 0: held), and the longest the monitor
waited. The best of the repeats is kept: other load on the machine only ever lowers the
share. zlib's compressor is the control that releases the lock.

Stages: encoding 60 s of the no-model double's audio per format (bench/cpu_cost_engine.py),
the text front end on the sentences of the agent's default script; controls: zlib level 6
on 4 MiB (releases the lock) and a pure Python loop (takes turns).
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import zlib
from collections.abc import Callable

import numpy as np

from bench.cpu_cost_engine import VOICE, no_model_audio, planned_units
from bench.tables import Table, format_text
from kokoro_server.audio import encoding as audio
from kokoro_server.config import Settings
from kokoro_server.engine.model_calls import plan_calls
from kokoro_server.engine.model_files import locate
from kokoro_server.serving.synthesis import build_frontend
from kokoro_server.text.segmenter import SentenceSegmenter
from voice_agent.llm import DEFAULT_SCRIPT

Work = Callable[[], object]
SAMPLES = 60 * 24000  # 60 s at 24 kHz


TICK_S = 0.001


def _wakeups(stop: threading.Event, gaps: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        time.sleep(TICK_S)
        gaps.append(time.perf_counter() - started)


def monitored(work: Work | None, idle_s: float = 0.3) -> tuple[float, list[float]]:
    """Run work (or sleep idle_s) beside the monitor; its wall time and the monitor's gaps."""
    stop = threading.Event()
    gaps: list[float] = []
    monitor = threading.Thread(target=_wakeups, args=(stop, gaps))
    monitor.start()
    time.sleep(0.02)  # the monitor is running before the work starts
    gaps.clear()
    started = time.perf_counter()
    if work is None:
        time.sleep(idle_s)
    else:
        work()
    wall = time.perf_counter() - started
    stop.set()
    monitor.join()
    return wall, gaps


def lock_share(work: Work, repeats: int) -> dict[str, float]:
    """The stage's wall time, the monitor's wake-up share and its longest wait (best run)."""
    idle_wall, idle_gaps = monitored(None)
    idle_rate = len(idle_gaps) / idle_wall
    runs = []
    for _ in range(repeats):
        wall, gaps = monitored(work)
        runs.append((len(gaps) / wall / idle_rate, max(gaps, default=wall), wall))
    share, longest, wall = max(runs)
    return {"wall_s": wall, "share": share, "longest_s": longest}


def script_sentences() -> list[str]:
    """The agent's default script, cut where the server's segmenter cuts it."""
    segmenter = SentenceSegmenter()
    return [str(p) for text in DEFAULT_SCRIPT for p in [*segmenter.feed(text), *segmenter.flush()]]


def repeated(work: Work, times: int) -> Work:
    """Work long enough (about 100 ms or more) to span many switch intervals."""
    return lambda: [work() for _ in range(times)]


def encoder(samples: np.ndarray, fmt: str) -> Work:
    return lambda: audio.encode(samples, fmt, audio.DEFAULT_RATES[fmt])


def python_loop() -> int:
    return sum(i * i for i in range(1_500_000))


def stages() -> dict[str, Work]:
    """Each stage's unit of work, about 5-200 ms on one core."""
    files = locate("")
    frontend = build_frontend(Settings(), files.vocab)
    sentences = script_sentences()
    call = plan_calls(frontend(DEFAULT_SCRIPT[0], VOICE).words, files.vocab)[0]
    one_call = no_model_audio(call, planned_units(call, 1.0))
    samples = np.tile(one_call, -(-SAMPLES // one_call.size))[:SAMPLES]
    data = os.urandom(1 << 20) * 4
    times = {"pcm": 20, "mp3": 1, "ulaw": 20, "opus": 1}  # a cheap encoder, many times
    work = {
        f"encode 60 s {fmt} x{n}": repeated(encoder(samples, fmt), n) for fmt, n in times.items()
    }
    front_end: Work = lambda: [frontend(s, VOICE) for s in sentences]  # noqa: E731
    work["front end, the script's sentences x20"] = repeated(front_end, 20)
    work["control: zlib level 6, 4 MiB (releases)"] = lambda: zlib.compress(data, 6)
    work["control: a Python loop (takes turns)"] = python_loop
    return work


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cpu_cost_gil", description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    rows = []
    for name, work in stages().items():
        found = lock_share(work, args.repeats)
        rows.append(
            [
                name,
                f"{found['wall_s'] * 1000:.0f}",
                f"{found['share']:.2f}",
                f"{found['longest_s'] * 1000:.1f}",
            ]
        )
    headers = ["stage", "took (ms)", "lock free (share)", "longest wait (ms)"]
    title = f"Does a stage let the process's other threads run? ({cores} cores, load {load:.2f})"
    print(format_text(Table(title, headers, rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

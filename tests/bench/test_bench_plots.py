"""The benchmark plots draw real PNGs (matplotlib is imported when the first one is drawn)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench import plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _stats(median: float) -> dict[str, float]:
    return {"median": median, "min": median * 0.8, "max": median * 1.5}


def test_each_plot_writes_a_png(tmp_path: Path) -> None:
    modes = [
        {"label": "stream", "ttfa": _stats(0.2), "total": _stats(1.0)},
        {"label": "batch", "ttfa": _stats(0.9), "total": _stats(1.1)},
    ]
    formats = [
        {"format": "pcm", "ws_wire_bytes": 48_000, "sse_event_bytes": 64_000},
        {"format": "opus", "ws_wire_bytes": 4_000, "sse_event_bytes": 5_400},
    ]
    row = {"config": "deadline", "ttfa": {"p95": 0.3}, "stall_s_mean": 0.0}
    groups = [
        {
            "engine": "tone",
            "start": "together",
            "rows": [
                {**row, "sessions": n, "callers": n, "stalled_callers": 0, "throughput": 2.0 * n}
                for n in (1, 2, 4)
            ],
        }
    ]
    drawn = {
        "timing": lambda p: plots.timing_bars(p, "TTFA", modes),
        "payload": lambda p: plots.payload_bars(p, "bytes", formats),
        "grid": lambda p: plots.playback_grid(p, "callers", groups),
    }
    for name, draw in drawn.items():
        path = tmp_path / f"{name}.png"
        draw(path)
        assert path.read_bytes().startswith(PNG_SIGNATURE), name


def test_importing_the_benchmarks_does_not_import_matplotlib() -> None:
    # Every test worker imports the benchmark modules while collecting; matplotlib is 1.1 s.
    code = (
        "import sys, bench.agent_ttfa, bench.tts_ttfa, bench.payload_sizes, bench.concurrency; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

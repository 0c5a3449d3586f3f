"""PNG plots (matplotlib, Agg backend: no display needed).

matplotlib is imported when a plot is drawn, not with this module: every benchmark module
imports this one, and the test suite imports those in each worker, where matplotlib's
import alone took 1.1 s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


@functools.cache
def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")  # before pyplot: the backend must be chosen first
    import matplotlib.pyplot as plt

    return plt


def timing_bars(path: Path, title: str, modes: list[dict[str, Any]]) -> None:
    """Median TTFA and total per mode, whiskers from min to max."""
    labels = [m["label"] for m in modes][::-1]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 0.8 * len(modes) + 1.6))
    ys = range(len(labels))
    # To the first audible sample where the benchmark measured it (bench/audible.py).
    first = "first_sound" if all(m.get("first_sound") for m in modes) else "ttfa"
    for offset, key, color in ((-0.2, first, "tab:blue"), (0.2, "total", "tab:gray")):
        stats = [m[key] for m in modes][::-1]
        med = [s["median"] * 1000 for s in stats]
        err = [
            [max(0.0, (s["median"] - s["min"]) * 1000) for s in stats],
            [max(0.0, (s["max"] - s["median"]) * 1000) for s in stats],
        ]
        name = {"ttfa": "first audio byte", "first_sound": "first sound"}.get(key, "total")
        ax.barh(
            [y + offset for y in ys], med, height=0.38, xerr=err, color=color, label=name, capsize=3
        )
    ax.set_yticks(list(ys), labels)
    ax.set_xlabel("ms (median; whiskers: min to max)")
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def payload_bars(path: Path, title: str, formats: list[dict[str, Any]]) -> None:
    names = [f["format"] for f in formats]
    xs = range(len(names))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ws = [f["ws_wire_bytes"] / 1024 for f in formats]
    sse = [f["sse_event_bytes"] / 1024 for f in formats]
    ax.bar([x - 0.2 for x in xs], ws, width=0.4, label="binary WebSocket frames")
    ax.bar([x + 0.2 for x in xs], sse, width=0.4, label="base64 in SSE events")
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("KiB on the wire")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def playback_grid(path: Path, title: str, groups: list[dict[str, Any]]) -> None:
    """Per engine and start pattern (rows): TTFA p95, stall time, stalled callers, throughput
    against the number of callers, one line per scheduler configuration."""
    panels: tuple[tuple[str, Callable[[dict[str, Any]], float | None]], ...] = (
        ("TTFA p95 (ms)", lambda r: r["ttfa"]["p95"] * 1000 if r["ttfa"] else None),
        ("stall s per caller (mean)", lambda r: r["stall_s_mean"]),
        ("callers stalled (%)", lambda r: 100 * r["stalled_callers"] / r["callers"]),
        ("audio s / wall s", lambda r: r["throughput"]),
    )
    plt = _pyplot()
    fig, axes = plt.subplots(
        len(groups), len(panels), figsize=(16, 3.2 * len(groups) + 0.8), squeeze=False
    )
    for row_axes, group in zip(axes, groups, strict=True):
        configs = list(dict.fromkeys(r["config"] for r in group["rows"]))
        for ax, (label, value) in zip(row_axes, panels, strict=True):
            for config in configs:
                rows = [r for r in group["rows"] if r["config"] == config]
                points = [(r["sessions"], value(r)) for r in rows if value(r) is not None]
                ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=config)
            ax.set_title(f"{group['engine']}, {group['start']}: {label}", fontsize=9)
            ax.set_xlabel("callers")
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

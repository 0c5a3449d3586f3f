"""PNG plots (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after use("Agg"): the backend must be chosen first


def timing_bars(path: Path, title: str, modes: list[dict[str, Any]]) -> None:
    """Median TTFA and total per mode, whiskers from min to max."""
    labels = [m["label"] for m in modes][::-1]
    fig, ax = plt.subplots(figsize=(10, 0.8 * len(modes) + 1.6))
    ys = range(len(labels))
    for offset, key, color in ((-0.2, "ttfa", "tab:blue"), (0.2, "total", "tab:gray")):
        stats = [m[key] for m in modes][::-1]
        med = [s["median"] * 1000 for s in stats]
        err = [
            [max(0.0, (s["median"] - s["min"]) * 1000) for s in stats],
            [max(0.0, (s["max"] - s["median"]) * 1000) for s in stats],
        ]
        name = "time to first audio" if key == "ttfa" else "total"
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


def concurrency_lines(path: Path, title: str, levels: list[dict[str, Any]]) -> None:
    n = [lv["sessions"] for lv in levels]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.plot(n, [lv["ttfa"]["median"] * 1000 for lv in levels], "o-", label="TTFA p50")
    left.plot(n, [lv["ttfa"]["p95"] * 1000 for lv in levels], "s--", label="TTFA p95")
    left.set_xlabel("simultaneous sessions")
    left.set_ylabel("ms")
    left.set_xticks(n)
    left.set_ylim(bottom=0)
    left.legend()
    left.set_title("time to first audio")
    right.plot(n, [lv["throughput"]["median"] for lv in levels], "o-", color="tab:green")
    right.axhline(1.0, color="gray", linestyle=":", label="real time")
    right.set_xlabel("simultaneous sessions")
    right.set_ylabel("audio seconds per wall second")
    right.set_xticks(n)
    right.set_ylim(bottom=0)
    right.legend()
    right.set_title("aggregate throughput")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

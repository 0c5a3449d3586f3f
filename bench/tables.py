"""Result JSON -> tables. One source for the console output and for docs/performance.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


# Which summaries of a mode a timing table shows: (the mode's key, its name in the headers,
# the statistics shown); every cell is in ms.
Columns = tuple[tuple[str, str, tuple[str, ...]], ...]
_ALL = ("median", "p95", "min", "max")
_TIMING: Columns = (("ttfa", "TTFA", _ALL), ("total", "total", _ALL))
# What a listener waits for leads; the first byte follows for comparison.
_SOUND: Columns = (
    ("first_sound", "first sound", _ALL),
    ("ttfa", "first byte", ("median", "p95")),
    ("total", "total", ("median", "p95")),
)
_AGENT: Columns = (
    ("first_text", "first text", ("median",)),
    ("first_sound", "first sound", _ALL),
    ("ttfa", "first byte", ("median",)),
    ("total", "total", ("median",)),
)


def _summary_table(
    title: str, label: str, runs: str, modes: list[dict[str, Any]], columns: Columns
) -> Table:
    """One row per mode: its label, the run count of its `runs` summary, then the columns.

    A summary a mode lacks (older results have no first sound) shows as "-"."""
    headers = [label, "runs", *(f"{name} {stat}" for _, name, stats in columns for stat in stats)]
    rows = [
        [
            mode["label"],
            str(mode[runs]["n"]),
            *(_ms((mode.get(key) or {}).get(stat)) for key, _, stats in columns for stat in stats),
        ]
        for mode in modes
    ]
    return Table(title, headers, rows)


def timing_table(title: str, modes: list[dict[str, Any]]) -> Table:
    """Rows of modes with `label`, `ttfa` and `total` summaries (seconds) -> ms columns.

    Modes that also carry `first_sound` (bench/audible.py) lead with it.
    """
    sound = bool(modes) and all(mode.get("first_sound") for mode in modes)
    return _summary_table(title + " (ms)", "mode", "total", modes, _SOUND if sound else _TIMING)


def tts_ttfa_tables(result: dict[str, Any]) -> list[Table]:
    measured = all(m.get("first_sound") for m in result["modes"])
    title = (
        "Time to first sound, first audio byte and total"
        if measured
        else "Time to first audio byte and total time"
    )
    tables = [timing_table(title, result["modes"])]
    ratio_rows = [
        [r["label"], _ratio(r["ttfa_ratio"]), _ratio(r.get("total_ratio"))]
        for r in result["ratios"]
    ]
    tables.append(Table("Ratios of medians", ["ratio", "TTFA", "total"], ratio_rows))
    overhead = result.get("server_overhead")
    if overhead:
        rows = [[o["label"], _ms(o["value_s"])] for o in overhead]
        tables.append(Table("Server overhead (medians)", ["quantity", "ms"], rows))
    return tables


# The payload table's columns: (header, the cell for one format's result).
_PAYLOAD_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("format", lambda f: f["format"]),
    ("audio bytes", lambda f: f"{f['audio_bytes']:,}"),
    ("binary WS frames", lambda f: str(f["frames"])),
    ("WS bytes on the wire", lambda f: f"{f['ws_wire_bytes']:,}"),
    ("base64 bytes", lambda f: f"{f['base64_bytes']:,}"),
    ("SSE event bytes", lambda f: f"{f['sse_event_bytes']:,}"),
    ("SSE / WS", lambda f: f"{f['sse_event_bytes'] / f['ws_wire_bytes']:.3f}"),
    ("bitrate kbps", lambda f: f"{f['bitrate_kbps']:.1f}"),
    ("WS bytes / audio s", lambda f: f"{f['ws_wire_bytes'] / f['audio_s']:,.0f}"),
    ("SSE bytes / audio s", lambda f: f"{f['sse_event_bytes'] / f['audio_s']:,.0f}"),
)


def payload_tables(result: dict[str, Any]) -> list[Table]:
    headers = [header for header, _ in _PAYLOAD_COLUMNS]
    rows = [[cell(f) for _, cell in _PAYLOAD_COLUMNS] for f in result["formats"]]
    tables = [Table("Bytes for the same audio, per format and transport", headers, rows)]
    if result.get("mp3_per_sentence"):
        mp3_rows = [
            [str(s["index"]), f"{s['duration_s']:.2f}", f"{s['bytes']:,}", f"{s['kbps']:.1f}"]
            for s in result["mp3_per_sentence"]
        ]
        tables.append(
            Table(
                f"MP3 measured bitrate per sentence (labelled {result['mp3_label_kbps']} kbps)",
                ["sentence", "audio s", "bytes", "kbps"],
                mp3_rows,
            )
        )
    tables.append(timing_table("Timing per format (whole paragraph, one message)", result["modes"]))
    return tables


def concurrency_tables(result: dict[str, Any]) -> list[Table]:
    """One table per engine and start pattern; rows: callers x scheduler configuration."""
    headers = [
        "callers",
        "scheduler",
        "admitted",
        "first sound p50",
        "first sound p95",
        "first byte p50",
        "p95 / solo",
        "callers stalled",
        "stalls",
        "stall s / caller (mean)",
        "stall s (max)",
        "audio s / wall s",
    ]
    tables = []
    for group in result["groups"]:
        # p95 / solo on the first sound where measured (older results: the first byte).
        first = "first_sound" if all(r.get("first_sound") for r in group["rows"]) else "ttfa"
        solo = {r["config"]: r[first] for r in group["rows"] if r["sessions"] == 1 and r[first]}
        rows = []
        for row in group["rows"]:
            ttfa, admitted = row[first], row["callers"] - row["refused"]
            sound = row.get("first_sound") or {}
            reference = solo.get(row["config"])
            ratio = ttfa["p95"] / reference["p95"] if ttfa and reference else None
            rows.append(
                [
                    str(row["sessions"]),
                    row["config"],
                    f"{admitted}/{row['callers']}",
                    _ms(sound.get("median")),
                    _ms(sound.get("p95")),
                    _ms(row["ttfa"]["median"] if row["ttfa"] else None),
                    _ratio(ratio),
                    f"{row['stalled_callers']}/{admitted}",
                    str(row["stalls"]),
                    f"{row['stall_s_mean']:.2f}",
                    f"{row['stall_s_max']:.2f}",
                    f"{row['throughput']:.2f}",
                ]
            )
        title = f"{group['engine'].capitalize()}, {group['start']} starts (times in ms)"
        tables.append(Table(title, headers, rows))
    return tables


def agent_tables(result: dict[str, Any]) -> list[Table]:
    modes = [mode for group in result["groups"] for mode in group["modes"]]
    speedups = [[g["label"], f"{g['stream_speedup']:.2f}x"] for g in result["groups"]]
    ref = result["public_reference"]
    speedups.append(
        [
            "public: local agent container / deployed AgentCore runtime",
            f"{ref['local_agent_container_speedup']}x"
            f" / {ref['deployed_agentcore_runtime_speedup']}x",
        ]
    )
    return [
        _summary_table(
            "Voice agent, measured at the caller (ms)", "token rate / mode", "ttfa", modes, _AGENT
        ),
        Table(
            (
                "First sound: how much sooner stream is than batch (batch / stream, medians)"
                if all(m.get("first_sound") for m in modes)
                else "First audio: how much sooner stream is than batch "
                "(batch TTFA / stream TTFA, medians)"
            ),
            ["text source", "stream speed-up"],
            speedups,
        ),
    ]


TABLE_BUILDERS = {
    "tts_ttfa": tts_ttfa_tables,
    "payload_sizes": payload_tables,
    "concurrency": concurrency_tables,
    "agent_ttfa": agent_tables,
}


def format_text(table: Table) -> str:
    widths = [len(h) for h in table.headers]
    for row in table.rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    lines = [table.title, "  ".join(h.rjust(w) for h, w in zip(table.headers, widths, strict=True))]
    for row in table.rows:
        lines.append("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    return "\n".join(lines)


def format_markdown(table: Table) -> str:
    lines = [
        f"**{table.title}**",
        "",
        "| " + " | ".join(table.headers) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.headers))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in table.rows]
    return "\n".join(lines)


def print_tables(name: str, result: dict[str, Any]) -> None:
    for table in TABLE_BUILDERS[name](result):
        print()
        print(format_text(table))

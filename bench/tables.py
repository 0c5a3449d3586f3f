"""Result JSON -> tables. One source for the console output and for docs/performance.md."""

from __future__ import annotations

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


def timing_table(title: str, modes: list[dict[str, Any]]) -> Table:
    """Rows of modes with `label`, `ttfa` and `total` summaries (seconds) -> ms columns.

    Modes that also carry `first_sound` (bench/audible.py) lead with it: what a listener
    waits for; the first byte follows for comparison.
    """
    if modes and all(mode.get("first_sound") for mode in modes):
        return _sound_table(title, modes)
    headers = [
        "mode",
        "runs",
        "TTFA median",
        "TTFA p95",
        "TTFA min",
        "TTFA max",
        "total median",
        "total p95",
        "total min",
        "total max",
    ]
    rows = []
    for mode in modes:
        ttfa, total = mode["ttfa"], mode["total"]
        rows.append(
            [
                mode["label"],
                str(total["n"]),
                *(_ms(ttfa[k]) for k in ("median", "p95", "min", "max")),
                *(_ms(total[k]) for k in ("median", "p95", "min", "max")),
            ]
        )
    return Table(title + " (ms)", headers, rows)


def _sound_table(title: str, modes: list[dict[str, Any]]) -> Table:
    headers = [
        "mode",
        "runs",
        "first sound median",
        "first sound p95",
        "first sound min",
        "first sound max",
        "first byte median",
        "first byte p95",
        "total median",
        "total p95",
    ]
    rows = []
    for mode in modes:
        sound, ttfa, total = mode["first_sound"], mode["ttfa"], mode["total"]
        rows.append(
            [
                mode["label"],
                str(total["n"]),
                *(_ms(sound[k]) for k in ("median", "p95", "min", "max")),
                *(_ms(ttfa[k]) for k in ("median", "p95")),
                *(_ms(total[k]) for k in ("median", "p95")),
            ]
        )
    return Table(title + " (ms)", headers, rows)


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


def payload_tables(result: dict[str, Any]) -> list[Table]:
    headers = [
        "format",
        "audio bytes",
        "binary WS frames",
        "WS bytes on the wire",
        "base64 bytes",
        "SSE event bytes",
        "SSE / WS",
        "bitrate kbps",
        "WS bytes / audio s",
        "SSE bytes / audio s",
    ]
    rows = []
    for f in result["formats"]:
        audio_s = f["audio_s"]
        rows.append(
            [
                f["format"],
                f"{f['audio_bytes']:,}",
                str(f["frames"]),
                f"{f['ws_wire_bytes']:,}",
                f"{f['base64_bytes']:,}",
                f"{f['sse_event_bytes']:,}",
                f"{f['sse_event_bytes'] / f['ws_wire_bytes']:.3f}",
                f"{f['bitrate_kbps']:.1f}",
                f"{f['ws_wire_bytes'] / audio_s:,.0f}",
                f"{f['sse_event_bytes'] / audio_s:,.0f}",
            ]
        )
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
    headers = [
        "token rate / mode",
        "runs",
        "first text median",
        "first sound median",
        "first sound p95",
        "first sound min",
        "first sound max",
        "first byte median",
        "total median",
    ]
    rows = []
    for group in result["groups"]:
        for mode in group["modes"]:
            ttfa = mode["ttfa"]
            sound = mode.get("first_sound") or {}  # older results: no first sound
            rows.append(
                [
                    mode["label"],
                    str(ttfa["n"]),
                    _ms(mode["first_text"]["median"]),
                    *(_ms(sound.get(k)) for k in ("median", "p95", "min", "max")),
                    _ms(ttfa["median"]),
                    _ms(mode["total"]["median"]),
                ]
            )
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
        Table("Voice agent, measured at the caller (ms)", headers, rows),
        Table(
            (
                "First sound: how much sooner stream is than batch (batch / stream, medians)"
                if all(m.get("first_sound") for g in result["groups"] for m in g["modes"])
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

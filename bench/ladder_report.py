"""The load ladder's table (console and markdown, bench/tables.py) and its plot (bench/plots.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import plots
from bench.tables import Table, format_markdown, format_text

HEADERS = [
    "callers",
    "heard",
    "refused",
    "first sound p50",
    "first sound p95",
    "first byte p50",
    "stalls (sessions)",
    "stall s",
    "stall %",
    "model ms / sentence p50",
    "model s / audio s",
    "server CPU (cores)",
    "open at once",
    "SLO",
]


def _ms(summary: dict[str, float] | None, key: str) -> str:
    return "-" if not summary else f"{summary[key] * 1000:.0f}"


def _num(value: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


def level_row(level: dict[str, Any]) -> list[str]:
    model, cpu = level["model"], level["server_cpu"]
    lost = [f"{level[k]} {k.replace('_', ' ')}" for k in ("failed", "timed_out") if level[k]]
    return [
        str(level["sessions"]),
        f"{level['ok']}/{level['sessions']}" + (f" ({', '.join(lost)})" if lost else ""),
        str(level["refused"]),
        _ms(level["first_sound"], "median"),
        _ms(level["first_sound"], "p95"),
        _ms(level["first_byte"], "median"),
        f"{level['stalls']} ({level['stalled_sessions']})",
        f"{level['stall_s']:.2f}",
        f"{level['stall_ratio'] * 100:.1f}",
        _num(model["synth_ms"]["median"] if model["synth_ms"] else None, "{:.0f}"),
        _num(model["model_s_per_audio_s"]),
        _num(cpu["cores"] if cpu else None),
        str(level["peak_open_sessions"]),
        "pass" if not level["broken"] else "BREAKS",
    ]


def ladder_table(result: dict[str, Any]) -> Table:
    title = f"Load ladder: {result['target']['description']} (times in ms)"
    return Table(title, HEADERS, [level_row(level) for level in result["levels"]])


def summary_lines(result: dict[str, Any]) -> list[str]:
    """What goes under the table: the SLO, why the ladder stopped, the recommendation."""
    slo, rec, m = result["slo"], result["recommendation"], result["machine"]
    stalls = slo["max_stalls_per_session"]
    lines = [
        f"SLO: first sound p95 <= {slo['first_sound_p95_ms']:g} ms, stall ratio <= "
        f"{slo['max_stall_ratio']:g}"
        + (f", at most {stalls} stalls per session" if stalls is not None else "")
        + f", at most {slo['max_refused']} refused, none failed",
        f"stopped: {result['stopped']}",
        f"recommended autoscaling target: {rec['rule']} (headroom {rec['headroom']:g} x the "
        f"highest level that held the SLO)"
        + (f"; deploy with {rec['cdk_context']}" if rec["cdk_context"] else ""),
    ]
    if rec["note"]:
        lines.append(f"note: {rec['note']}")
    lines.append(f"server CPU: {result['server_cpu_note']}")
    busy = "  ** taken on a BUSY machine **" if result["busy_machine"] else ""
    lines.append(
        f"machine: {m['cpu_model']}, {m['usable_cores']} usable cores; load average (1 min) "
        f"{_num(m['load_average_1m_at_start'])} at start, "
        f"{_num(result['load_average_1m_at_end'])} at end (with the ladder's own load){busy}"
    )
    return lines


def print_report(result: dict[str, Any], markdown: bool = False) -> None:
    table = ladder_table(result)
    print()
    print(format_markdown(table) if markdown else format_text(table))
    print()
    for line in summary_lines(result):
        print(line)


def plot(png: Path, result: dict[str, Any]) -> None:
    """First sound, stall ratio, refusals and server load against the number of callers."""
    levels = result["levels"]
    xs = [level["sessions"] for level in levels]
    slo = result["slo"]
    plt = plots._pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    sound, stall, refused, load = axes
    for key, style in (("median", "o-"), ("p95", "s--")):
        ys = [lv["first_sound"][key] * 1000 if lv["first_sound"] else None for lv in levels]
        sound.plot(xs, ys, style, label=f"first sound {key}")
    sound.axhline(slo["first_sound_p95_ms"], color="tab:red", lw=1, label="SLO (p95)")
    sound.set_ylabel("ms")
    stall.plot(xs, [lv["stall_ratio"] for lv in levels], "o-", label="stall ratio")
    stall.axhline(slo["max_stall_ratio"], color="tab:red", lw=1, label="SLO")
    refusals = [lv["refused"] for lv in levels]
    refused.bar(xs, refusals, label="refused")
    lost = [lv["failed"] + lv["timed_out"] for lv in levels]
    refused.bar(xs, lost, bottom=refusals, label="failed or timed out")
    refused.set_ylabel("sessions")
    load.plot(
        xs, [lv["model"]["model_s_per_audio_s"] for lv in levels], "o-", label="model s / audio s"
    )
    if any(lv["server_cpu"] for lv in levels):
        cores = [lv["server_cpu"]["cores"] if lv["server_cpu"] else None for lv in levels]
        load.plot(xs, cores, "s--", label="server CPU (cores)")
    target = result["recommendation"]["target_concurrency_per_instance"]
    for ax in axes:
        ax.set_xticks(xs)
        ax.set_xlabel("callers at once")
        ax.set_ylim(bottom=0)
        if target:
            ax.axvline(target, color="tab:green", lw=1, ls=":")
        ax.legend(fontsize=8)
    fig.suptitle(
        f"{result['target']['description']}: recommended target {target} "
        f"(green; {result['recommendation']['rule']})",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)

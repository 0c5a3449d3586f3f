"""Load ladder: how many callers at once one Kokoro TTS server holds under its SLO, and the
autoscaling target that follows.

Levels of 1, 2, 4, ... callers (up to --max-sessions, or --levels). At each level the callers
arrive --stagger-s apart; each streams one answer (the demo paragraph, or --text/--text-file)
as LLM deltas at --tokens-per-s, plays its audio in real time and records its time to first
sound, its stalls (its buffered audio ran out before the next audio arrived) and the model
time of its sentences (`synth_ms`). The ladder stops at the first level that breaks the SLO
(first sound p95, stall ratio, stalls per session, refusals, any failure) and recommends
floor(--headroom x the highest level that held it) for `target_concurrency_per_instance`
(docs/capacity.md). Table on stdout; JSON at --out and a PNG plot beside it.

    python -m bench.ladder                                  # real model, local, CPU
    python -m bench.ladder --target tone                    # the tone test double
    python -m bench.ladder --url ws://127.0.0.1:8080        # a running server
    python -m bench.ladder --endpoint-name NAME [--region R] [--profile P]   # deployed

Exit codes: 0 the ladder ran (whatever it found); 2 it cannot run (bad option, unreachable
server, missing endpoint, credentials, region), said in one line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kokoro_stream.messages import DEFAULT_SAMPLE_RATE
from smithy_http.aio.interfaces import HTTPClient

from bench.common import write_result
from bench.ladder_levels import Callers, Slo, recommend, run_level, verdict
from bench.ladder_report import plot, print_report
from bench.ladder_session import HOLD_ANSWER, HOLD_CALL, OK, run_caller
from bench.ladder_targets import LadderError, LadderTarget, open_target
from bench.machine import machine_info
from devkit.paths import OUT_DIR
from devkit.text import PARAGRAPH, llm_deltas

NAME = "ladder"
# Your run's result, git-ignored; the committed ladders are bench/results/ladder_*.json.
DEFAULT_OUT = OUT_DIR / f"{NAME}.json"


@dataclass(frozen=True)
class Plan:
    levels: list[int]
    callers: Callers
    warmup_deltas: list[str]
    slo: Slo
    headroom: float
    level_timeout_s: float
    time_limit_s: float
    settle_s: float
    text: str


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.ladder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _target_args(p.add_argument_group("target (one of)"))
    _load_args(p.add_argument_group("load"))
    _slo_args(p.add_argument_group("SLO and recommendation"))
    out = p.add_argument_group("output")
    out.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="JSON, the PNG beside it (out/ladder.json)",
    )
    out.add_argument("--no-plot", action="store_true", help="skip the PNG beside the JSON")
    out.add_argument("--markdown", action="store_true", help="print the table as markdown")
    return p.parse_args(argv)


def _target_args(where: argparse._ArgumentGroup) -> None:
    where.add_argument("--target", choices=("model", "tone"), help="a server started here")
    where.add_argument("--url", help="a running server: ws://host:port (or http://)")
    where.add_argument("--endpoint-name", help="a deployed SageMaker endpoint (name or ARN)")
    where.add_argument("--region", help="AWS region (default AWS_REGION, then the profile's)")
    where.add_argument("--profile", help="AWS named profile (default: the credential chain)")
    where.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KOKORO_NAME=VALUE",
        help="a setting of the server started here (repeatable)",
    )
    where.add_argument(
        "--tone-delay-ms", type=float, default=30.0, help="tone: sleep per sentence (30)"
    )


def _load_args(load: argparse._ArgumentGroup) -> None:
    load.add_argument("--levels", help="callers per level, e.g. 1,2,3 (default: doubling)")
    load.add_argument("--max-sessions", type=int, default=16, help="doubling up to this (16)")
    load.add_argument("--stagger-s", type=float, default=0.5, help="between arrivals (0.5)")
    load.add_argument("--tokens-per-s", type=float, default=40.0, help="LLM token rate (40)")
    load.add_argument("--text", help="the answer every caller streams (default: the demo's)")
    load.add_argument("--text-file", type=Path, help="... read from a file")
    load.add_argument("--voice", help="voice (default: the server's)")
    load.add_argument(
        "--hold",
        choices=(HOLD_CALL, HOLD_ANSWER),
        default=HOLD_CALL,
        help="call: a caller's stream stays open until it has heard its answer (one stream "
        "per call, as the Pipecat service keeps); answer: closed once its audio arrived (the "
        "voice agent's and the LiveKit plugin's session per answer). Default: call",
    )
    load.add_argument("--level-timeout-s", type=float, default=120.0, help="per level (120)")
    load.add_argument("--time-limit-s", type=float, default=900.0, help="whole ladder (900)")
    load.add_argument(
        "--settle-s", type=float, default=1.0, help="pause before each level: sessions close (1)"
    )


def _slo_args(slo: argparse._ArgumentGroup) -> None:
    slo.add_argument("--slo-first-sound-p95-ms", type=float, default=1000.0, help="ms (1000)")
    slo.add_argument(
        "--slo-max-stall-ratio", type=float, default=0.01, help="stall s / audio s (0.01)"
    )
    slo.add_argument("--slo-max-stalls", type=int, default=None, help="per session (no limit)")
    slo.add_argument("--slo-max-refused", type=int, default=0, help="refused per level (0)")
    slo.add_argument(
        "--headroom", type=float, default=0.75, help="target = floor(h x level) (0.75)"
    )


def ladder_levels(raw: str | None, max_sessions: int) -> list[int]:
    """--levels as given (sorted, each once), else 1, 2, 4, ... up to max_sessions."""
    if raw is None:
        if max_sessions < 1:
            raise LadderError(f"--max-sessions must be at least 1, got {max_sessions}")
        levels = [2**k for k in range(max_sessions.bit_length()) if 2**k <= max_sessions]
        return levels if levels[-1] == max_sessions else [*levels, max_sessions]
    try:
        levels = sorted({int(x) for x in raw.split(",") if x.strip()})
    except ValueError as exc:
        raise LadderError(f"--levels takes comma-separated integers, got {raw!r}") from exc
    if not levels or levels[0] < 1:
        raise LadderError(f"--levels takes positive integers, got {raw!r}")
    return levels


def answer_text(args: argparse.Namespace) -> str:
    if args.text is not None and args.text_file is not None:
        raise LadderError("give --text or --text-file, not both")
    text: str
    if args.text_file is not None:
        try:
            text = args.text_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise LadderError(f"cannot read --text-file: {exc}") from exc
    else:
        text = PARAGRAPH if args.text is None else args.text
    if not text.strip():
        raise LadderError("the answer text is empty")
    return text.strip()


def first_sentence(text: str) -> str:
    """The warm-up's text: the answer's first sentence, as the server's segmenter cuts it."""
    from kokoro_server.text.segmenter import SentenceSegmenter

    segmenter = SentenceSegmenter(first_clause=False)
    pieces = [*segmenter.feed(text), *segmenter.flush()]
    return pieces[0] if pieces else text


def check_target_flags(args: argparse.Namespace) -> None:
    chosen = [f for f, v in (("--target", args.target), ("--url", args.url)) if v]
    chosen += ["--endpoint-name"] if args.endpoint_name else []
    if len(chosen) > 1:
        raise LadderError(f"give one target, not {' and '.join(chosen)}")
    remote = bool(args.url or args.endpoint_name)
    if remote and args.server_env:
        raise LadderError("--server-env sets a server started here; this one is not")
    if (args.region or args.profile) and not args.endpoint_name:
        raise LadderError("--region and --profile go with --endpoint-name")
    args.target = args.target or "model"
    env = {}
    for pair in args.server_env:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("KOKORO_"):
            raise LadderError(f"--server-env takes KOKORO_NAME=VALUE, got {pair!r}")
        env[key] = value
    args.server_env = env


def build_plan(args: argparse.Namespace) -> Plan:
    check_target_flags(args)
    positive = ("stagger_s", 0.0), ("tokens_per_s", 1e-9), ("level_timeout_s", 1e-9)
    zero_or_more = ("tone_delay_ms", 0.0), ("settle_s", 0.0)
    for name, least in (*positive, ("time_limit_s", 1e-9), *zero_or_more):
        if getattr(args, name) < least:
            flag = "--" + name.replace("_", "-")
            raise LadderError(f"{flag} must be {'positive' if least else 'zero or more'}")
    if not 0 < args.headroom <= 1:
        raise LadderError(f"--headroom must be in (0, 1], got {args.headroom:g}")
    if args.slo_first_sound_p95_ms <= 0 or args.slo_max_stall_ratio < 0:
        raise LadderError("the SLO limits must be positive")
    text = answer_text(args)
    callers = Callers(
        llm_deltas(text),
        args.stagger_s,
        args.tokens_per_s,
        args.voice,
        DEFAULT_SAMPLE_RATE,
        args.hold,
    )
    slo = Slo(
        args.slo_first_sound_p95_ms / 1000,
        args.slo_max_stall_ratio,
        args.slo_max_stalls,
        args.slo_max_refused,
    )
    return Plan(
        ladder_levels(args.levels, args.max_sessions),
        callers,
        llm_deltas(first_sentence(text)),
        slo,
        args.headroom,
        args.level_timeout_s,
        args.time_limit_s,
        args.settle_s,
        text,
    )


async def warm_up(target: LadderTarget, plan: Plan) -> None:
    """One session of the answer's first sentence, unmeasured: the target serves at all
    (else one line says why), and a model is warm before the first level."""
    t0 = time.perf_counter()
    caller = await run_caller(
        target.transport,
        plan.warmup_deltas,
        caller=0,
        offset_s=0.0,
        level_t0=t0,
        deadline=t0 + plan.level_timeout_s,
        tokens_per_s=plan.callers.tokens_per_s,
        voice=plan.callers.voice,
        sample_rate=plan.callers.sample_rate,
        hold=HOLD_ANSWER,
    )
    if caller.outcome != OK:
        raise LadderError(target.explain(caller))
    print(f"warm-up: one session, first byte after {(caller.first_byte_s or 0) * 1000:.0f} ms")


async def climb(target: LadderTarget, plan: Plan) -> tuple[list[dict[str, Any]], str]:
    """Level after level until one breaks the SLO, the levels run out or the time does."""
    try:
        await warm_up(target, plan)
        levels: list[dict[str, Any]] = []
        started = time.perf_counter()
        for n in plan.levels:
            left = plan.time_limit_s - (time.perf_counter() - started)
            if left <= 0:
                return levels, f"the time limit ({plan.time_limit_s:g} s) ran out before level {n}"
            await asyncio.sleep(plan.settle_s)  # the last level's sessions close on the server
            print(f"level {n}: {n} caller(s), {plan.callers.stagger_s:g} s apart ...", flush=True)
            timeout = min(plan.level_timeout_s, left)
            level = await run_level(target.transport, n, plan.callers, timeout, target.cpu_s)
            level["broken"] = verdict(level, plan.slo)
            levels.append(level)
            print(f"  {_progress(level)}", flush=True)
            if level["broken"]:
                cut = (
                    " (the ladder's time limit cut it short)"
                    if timeout < plan.level_timeout_s
                    else ""
                )
                return levels, f"level {n} broke the SLO{cut}: {'; '.join(level['broken'])}"
        return levels, f"every level held the SLO (the highest: {plan.levels[-1]})"
    finally:
        await target.transport.aclose()


def _progress(level: dict[str, Any]) -> str:
    sound = level["first_sound"]
    p95 = f"{sound['p95'] * 1000:.0f} ms" if sound else "-"
    return (
        f"{level['ok']}/{level['sessions']} heard, {level['refused']} refused, first sound "
        f"p95 {p95}, {level['stalls']} stalls ({level['stall_s']:.2f} s), "
        f"{'breaks the SLO' if level['broken'] else 'holds the SLO'}"
    )


def measure(plan: Plan, args: argparse.Namespace, stream_http: HTTPClient | None) -> dict[str, Any]:
    providers = None
    if args.target == "model" and not (args.url or args.endpoint_name):
        from bench.engine_bench import server_providers

        providers = server_providers()
    machine = machine_info(providers)  # before a local server loads: the machine's own load
    with open_target(args, stream_http) as target:
        levels, stopped = asyncio.run(climb(target, plan))
        cpu_note = target.cpu_note
        description = target.description
        kind = target.kind
    return {
        "name": NAME,
        "target": {"kind": kind, "description": description},
        "machine": machine,
        "settings": settings_record(plan, args),
        "slo": plan.slo.record(),
        "levels": levels,
        "stopped": stopped,
        "recommendation": recommend(levels, plan.headroom, plan.callers.hold),
        "server_cpu_note": cpu_note,
        "load_average_1m_at_end": os.getloadavg()[0],
    }


def settings_record(plan: Plan, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "levels": plan.levels,
        "stagger_s": plan.callers.stagger_s,
        "tokens_per_s": plan.callers.tokens_per_s,
        "text_chars": len(plan.text),
        "text_deltas": len(plan.callers.deltas),
        "voice": plan.callers.voice,
        "hold": plan.callers.hold,
        "format": "pcm",
        "sample_rate": plan.callers.sample_rate,
        "level_timeout_s": plan.level_timeout_s,
        "time_limit_s": plan.time_limit_s,
        "settle_s": plan.settle_s,
        "tone_delay_ms": args.tone_delay_ms if args.target == "tone" and not args.url else None,
        "server_env": args.server_env,
        "command": "python -m bench.ladder "
        + " ".join(sys.argv[1:] if args.argv is None else args.argv),
    }


def publish(result: dict[str, Any], args: argparse.Namespace) -> None:
    """Busy: a 1-minute load average above half the cores, before the ladder began (and at
    its end for a remote server; a local one's own work is in the end figure)."""
    cores = result["machine"]["usable_cores"] or 1
    loads = [result["machine"]["load_average_1m_at_start"]]
    if result["target"]["kind"] in ("url", "endpoint"):
        loads.append(result["load_average_1m_at_end"])
    result["busy_machine"] = any(v is not None and v > 0.5 * cores for v in loads)
    print_report(result, markdown=args.markdown)
    out: Path = args.out
    path = write_result(out.parent, out.name.removesuffix(".json"), result)
    if not args.no_plot:
        plot(path.with_suffix(".png"), result)
    print(f"\nwrote {path}" + ("" if args.no_plot else f" and {path.with_suffix('.png')}"))


def main(argv: list[str] | None = None, *, stream_http: HTTPClient | None = None) -> int:
    """`stream_http`: the HTTP transport under the SageMaker SDK client (tests only)."""
    args = parse_args(argv)
    args.argv = argv
    try:
        plan = build_plan(args)
        result = measure(plan, args, stream_http)
    except LadderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    publish(result, args)
    return 0


def cli() -> int:
    """`python -m bench.ladder`: library error logs one line each, the transport's not at all
    (every session's failure is in the table and the JSON; a setup failure is the one line)."""
    import logging

    from smoke.cli import OneLineFormatter, quiet_cancelled_crt_connects

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.ERROR, handlers=[handler], force=True)
    logging.getLogger("kokoro_stream").setLevel(logging.CRITICAL)
    quiet_cancelled_crt_connects()
    return main()


if __name__ == "__main__":
    sys.exit(cli())

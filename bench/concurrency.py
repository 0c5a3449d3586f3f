"""Benchmark 4: many callers on one server, FIFO vs deadline scheduling, heard in real time.

Every simulated caller streams the paragraph in one message and plays its audio in real time
from the first byte (bench/playback.py). Per level of N callers: time to first audio, stalls
(the next sentence arrived after the audio before it had finished playing), total stall time
per caller, callers refused with `busy`, and aggregate audio seconds per wall second.

- Starts: `staggered` (caller i starts at i x A / N, A = one answer's audio length: the
  realistic case, callers arriving while others are mid-answer, about N answers playing at
  once) and `simultaneous` (all at the same moment).
- Configurations, each its own server started here, measured side by side in one run (runs
  interleaved level by level): `fifo` and `deadline` scheduling with admission by session
  count only, and `deadline+admission` / `fifo+admission` (each policy plus the load check,
  KOKORO_MAX_LOAD=1), with both start patterns: admission counts sessions admitted but not
  yet speaking too, so callers that connect at the same moment are admitted only as far as
  capacity goes.
- `deadline+preempt`, `deadline+admission+preempt`, `deadline+admission+starts+preempt`:
  the same with pre-emption (KOKORO_PREEMPT_MAX=1: a model call whose listener has audio in
  hand is stopped and requeued for a sentence due now); every other configuration sets it 0.
  A plain run compares DEFAULT_CONFIGS; --configs picks any of CONFIGS.
- The same sweep with the tone test double (devkit/tone.py: sine audio, a fixed
  sleep per sentence instead of the model) at 16-32 callers, where the CPU is not the limit,
  to show the policy itself.

    python -m bench.concurrency [--levels 1,2,3,4,6,8] [--tone-levels 1,16,24,32]
        [--tone-delay-ms 30] [--tone-repeat 1] [--starts staggered,simultaneous]
        [--configs fifo,deadline,deadline+admission] [--engines model,tone] [--runs N] [--quick]
        [--server-env KOKORO_SYNTH_WORKERS=2] [--base-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kokoro_stream.base import TtsConnectionLost
from websockets.exceptions import ConnectionClosed

from bench import plots
from bench.audible import first_sound_s
from bench.common import (
    BenchError,
    RunOnce,
    Sample,
    Target,
    add_common_args,
    open_target,
    read_paragraph,
    resolve_runs,
    run_benchmark,
    run_interleaved,
)
from bench.engine_bench import server_providers
from bench.machine import machine_info
from bench.playback import caller_record, play, summarize_level
from devkit.local_stack import tts_server
from devkit.paths import OUT_DIR
from devkit.tts_client import TransportStreamError

if TYPE_CHECKING:
    from devkit.tone import ToneSynthesisService

NAME = "concurrency"
START: dict[str, Any] = {"audio_format": "pcm", "sample_rate": 24000}
STARTS = ("staggered", "simultaneous")
_OFF = {"KOKORO_PREEMPT_MAX": "0", "KOKORO_MAX_STARTING": "0"}
CONFIGS: dict[str, dict[str, str]] = {
    "fifo": {**_OFF, "KOKORO_SCHEDULER": "fifo", "KOKORO_MAX_LOAD": "0"},
    "deadline": {**_OFF, "KOKORO_SCHEDULER": "deadline", "KOKORO_MAX_LOAD": "0"},
    # Pre-emption: a model call due later is stopped and requeued for one due now.
    "deadline+preempt": {
        **_OFF,
        "KOKORO_SCHEDULER": "deadline",
        "KOKORO_MAX_LOAD": "0",
        "KOKORO_PREEMPT_MAX": "1",
    },
    "deadline+admission": {**_OFF, "KOKORO_SCHEDULER": "deadline", "KOKORO_MAX_LOAD": "1"},
    "deadline+admission+preempt": {
        **_OFF,
        "KOKORO_SCHEDULER": "deadline",
        "KOKORO_MAX_LOAD": "1",
        "KOKORO_PREEMPT_MAX": "1",
    },
    "fifo+admission": {**_OFF, "KOKORO_SCHEDULER": "fifo", "KOKORO_MAX_LOAD": "1"},
    # The load check plus at most one admitted session still waiting for its first audio.
    "deadline+admission+starts": {
        **_OFF,
        "KOKORO_SCHEDULER": "deadline",
        "KOKORO_MAX_LOAD": "1",
        "KOKORO_MAX_STARTING": "1",
    },
    "deadline+admission+starts+preempt": {
        **_OFF,
        "KOKORO_SCHEDULER": "deadline",
        "KOKORO_MAX_LOAD": "1",
        "KOKORO_MAX_STARTING": "1",
        "KOKORO_PREEMPT_MAX": "1",
    },
}
# What a plain run compares (one real server each): both policies, pre-emption, and the
# shipped defaults (deadline, admission by load, pre-emption) with and without the limit on
# starting sessions. --configs picks any of CONFIGS.
DEFAULT_CONFIGS = (
    "fifo",
    "deadline",
    "deadline+preempt",
    "deadline+admission+preempt",
    "deadline+admission+starts+preempt",
)
AS_DEPLOYED = "as deployed"  # a server this script did not start: its own settings
MODEL, TONE = "real model", "tone double"
ENGINES = ("model", "tone")


def parse_levels(raw: str, flag: str = "--levels") -> list[int]:
    try:
        levels = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError as exc:
        raise BenchError(f"{flag} must be comma-separated integers, got {raw!r}") from exc
    if not levels or any(n < 1 for n in levels):
        raise BenchError(f"{flag} needs positive integers, got {raw!r}")
    return sorted(set(levels))


def parse_choices(raw: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    chosen = [x.strip() for x in raw.split(",") if x.strip()]
    unknown = [x for x in chosen if x not in allowed]
    if not chosen or unknown:
        raise BenchError(f"{flag} takes a comma-separated subset of {', '.join(allowed)}")
    return [x for x in allowed if x in chosen]


def parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("KOKORO_"):
            raise BenchError(f"--server-env takes KOKORO_NAME=VALUE, got {pair!r}")
        if key in CONFIGS["fifo"]:
            raise BenchError(f"{key} is what --configs varies; it cannot be fixed here")
        env[key] = value
    return env


def offsets(n: int, start: str, answer_s: float) -> list[float]:
    """When each caller starts, in seconds: staggered callers keep about N answers playing."""
    return [i * answer_s / n if start == "staggered" else 0.0 for i in range(n)]


@dataclass
class Server:
    config: str
    target: Target
    guard_decisions: Callable[[], int] = lambda: 0  # tone double only: read in process
    preemptions: Callable[[], int] = lambda: 0  # tone double only: jobs stopped and requeued


async def call(target: Target, paragraph: str, offset_s: float) -> dict[str, Any]:
    """One caller: wait for its start, stream the paragraph, replay what it received."""
    await asyncio.sleep(offset_s)
    try:
        result = await target.stream([paragraph], **START)
    except ConnectionClosed as exc:  # WebSocket: `busy` closes with 1013 (try again later)
        if exc.rcvd is not None and exc.rcvd.code == 1013:
            return caller_record(None, offset_s)
        raise BenchError(f"a session failed: {exc}") from exc
    except (TransportStreamError, TtsConnectionLost) as exc:
        # The error event ends the stream; a close 1013 that comes before the client's
        # `start` went out surfaces as the connection lost while sending it.
        if str(exc).startswith("busy") or "1013" in str(exc):
            return caller_record(None, offset_s)
        raise BenchError(f"a session failed: {exc}") from exc
    if any(e.get("code") == "busy" for e in result.errors):
        return caller_record(None, offset_s)
    if result.errors or not result.sentences:
        raise BenchError(f"a session failed: {result.errors or 'no audio'}")
    played = play(
        [s.first_byte_s or 0.0 for s in result.sentences],
        [s.complete.get("duration_s", 0.0) for s in result.sentences],
    )
    return caller_record(
        played, offset_s, first_sound_s(played.ttfa_s, result.audio, START["sample_rate"])
    )


def level_run(
    server: Server, engine: str, paragraph: str, n: int, start: str, answer_s: float
) -> RunOnce:
    async def run() -> Sample:
        guards, preempted = server.guard_decisions(), server.preemptions()
        t0 = time.perf_counter()
        callers = await asyncio.gather(
            *(call(server.target, paragraph, at) for at in offsets(n, start, answer_s))
        )
        wall = time.perf_counter() - t0
        admitted = [c for c in callers if not c["refused"]]
        stalls = sum(c["stalls"] for c in admitted)
        return {
            "engine": engine,
            "start": start,
            "sessions": n,
            "config": server.config,
            "callers": callers,
            "wall_s": wall,
            "audio_s": sum(c["audio_s"] for c in admitted),
            "guard_decisions": server.guard_decisions() - guards,
            "preemptions": server.preemptions() - preempted,
            "summary": f"{len(admitted)}/{n} admitted, TTFA max "
            f"{max((c['ttfa_s'] for c in admitted), default=0) * 1000:.0f} ms, {stalls} stalls, "
            f"{server.preemptions() - preempted} pre-emptions",
        }

    return run


def mode_name(engine: str, start: str, n: int, config: str) -> str:
    return f"{engine} | {start} | {n} sessions | {config}"


def build_modes(
    engine: str,
    servers: list[Server],
    paragraph: str,
    levels: list[int],
    starts: list[str],
    answer_s: float,
) -> dict[str, RunOnce]:
    """Level by level, every start and configuration next to each other (fair in time)."""
    modes = {}
    for n in levels:
        for start in starts:
            for server in servers:
                modes[mode_name(engine, start, n, server.config)] = level_run(
                    server, engine, paragraph, n, start, answer_s
                )
    return modes


def analyse(samples: dict[str, list[Sample]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for runs in samples.values():
        key = (runs[0]["engine"], runs[0]["start"])
        groups.setdefault(key, []).append(summarize_level(runs))
    return [
        {"engine": engine, "start": start, "rows": rows} for (engine, start), rows in groups.items()
    ]


@contextlib.contextmanager
def model_servers(
    args: argparse.Namespace, env: dict[str, str], configs: list[str]
) -> Iterator[list[Server]]:
    """One real server per configuration (started here), or the given remote one."""
    if args.base_url or args.transport == "sagemaker":
        with open_target(args, env=env) as target:
            yield [Server(AS_DEPLOYED, target)]
        return
    with contextlib.ExitStack() as stack:
        servers = []
        for config in configs:
            print(f"Starting the Kokoro server for {config} (real Kokoro-82M, CPU) ...")
            log = OUT_DIR / f"bench-server-{config.replace('+', '-')}.log"
            base_url = stack.enter_context(
                tts_server(env={**env, **CONFIGS[config]}, timeout_s=300.0, log_path=log)
            )
            description = "real servers (container/serve) on 127.0.0.1, one per configuration"
            servers.append(Server(config, Target("local", base_url, description)))
        yield servers


@contextlib.contextmanager
def tone_servers(configs: list[str], delay_s: float) -> Iterator[list[Server]]:
    """Test double servers in this process: the real app and thread pool, tone for the model."""
    import dataclasses

    from devkit.loopback import AppServer
    from devkit.tone import ToneSynthesisService
    from kokoro_server.config import Settings
    from kokoro_server.serving.app import create_app
    from kokoro_server.serving.serve import uvicorn_options

    with contextlib.ExitStack() as stack:
        # In process, the app's warnings (a refused session) would land between the tables.
        app_log = logging.getLogger("kokoro")
        stack.callback(app_log.setLevel, app_log.level)
        app_log.setLevel(logging.ERROR)
        servers = []
        for config in configs:
            settings = dataclasses.replace(
                Settings(host="127.0.0.1", max_sessions=256),
                scheduler=CONFIGS[config]["KOKORO_SCHEDULER"],
                max_load=float(CONFIGS[config]["KOKORO_MAX_LOAD"]),
                max_starting=int(CONFIGS[config]["KOKORO_MAX_STARTING"]),
                preempt_max=int(CONFIGS[config]["KOKORO_PREEMPT_MAX"]),
            )
            service = ToneSynthesisService(settings, delay_s=delay_s)
            service.load()
            stack.callback(service.shutdown)
            app = create_app(settings, service)
            srv = stack.enter_context(AppServer(app, **uvicorn_options(settings)))
            target = Target("local", srv.http, "tone double (test double) in process")
            servers.append(Server(config, target, *service_counters(service)))
        yield servers


def service_counters(
    service: ToneSynthesisService,
) -> tuple[Callable[[], int], Callable[[], int]]:
    """The tone double's guard decisions and pre-emptions, read in process (bound now, not
    in a loop)."""
    return (lambda: service.guard_decisions), (lambda: service.preempted_jobs)


async def answer_length(servers: list[Server], paragraph: str) -> float:
    """Warm-up: one solo caller per server; returns one answer's audio seconds."""
    answers: list[float] = []
    for server in servers:
        print(f"  warm-up: 1 caller on {server.config}", flush=True)
        result = await server.target.stream([paragraph], **START)
        if result.errors or not result.sentences:
            raise BenchError(f"warm-up failed on {server.config}: {result.errors}")
        answers.append(sum(s.complete.get("duration_s", 0.0) for s in result.sentences))
    return answers[0]


async def sweep(
    engine: str,
    servers: list[Server],
    paragraph: str,
    levels: list[int],
    starts: list[str],
    runs: int,
) -> tuple[float, dict[str, list[Sample]]]:
    print(f"\n{engine}: levels {levels}, starts {starts}, {runs} run(s) per level")
    answer_s = await answer_length(servers, paragraph)
    print(f"  one answer plays {answer_s:.2f} s")
    modes = build_modes(engine, servers, paragraph, levels, starts, answer_s)
    return answer_s, await run_interleaved(modes, runs, 0)


def measure(args: argparse.Namespace, runs: int, env: dict[str, str]) -> dict[str, Any]:
    paragraph = read_paragraph()
    engines = parse_choices(args.engines, ENGINES, "--engines")
    levels = parse_levels(args.levels or ("1,2" if args.quick else "1,2,3,4,6,8"))
    tone_levels = parse_levels(
        args.tone_levels or ("1,16" if args.quick else "1,16,24,32"), "--tone-levels"
    )
    starts = parse_choices(args.starts, STARTS, "--starts")
    configs = parse_choices(args.configs, tuple(CONFIGS), "--configs")
    if args.tone_delay_ms <= 0:
        raise BenchError("--tone-delay-ms must be positive")
    if args.tone_repeat < 1:
        raise BenchError("--tone-repeat must be 1 or more")
    machine = machine_info(None)
    target = {"kind": "local", "description": "tone double (test double) in this process"}
    samples: dict[str, list[Sample]] = {}
    answers: dict[str, float] = {}
    if "model" in engines:
        with model_servers(args, env, configs) as servers:
            first = servers[0].target
            machine = machine_info(server_providers() if first.same_machine else None)
            target = {"kind": first.kind, "description": first.description}
            answers[MODEL], found = asyncio.run(
                sweep(MODEL, servers, paragraph, levels, starts, runs)
            )
            samples.update(found)
    if "tone" in engines:
        # A longer answer (--tone-repeat) lets listeners build audio in hand, as the model's
        # longer sentences do: what pre-emption needs to be safe.
        answer = " ".join([paragraph] * args.tone_repeat)
        with tone_servers(configs, args.tone_delay_ms / 1000) as servers:
            answers[TONE], found = asyncio.run(
                sweep(TONE, servers, answer, tone_levels, starts, runs)
            )
            samples.update(found)
    return {
        "name": NAME,
        "quick": bool(args.quick),
        "runs": runs,
        "warmup": 1,
        "target": target,
        "server_env": env,
        "configs": {c: CONFIGS[c] for c in configs},
        "machine": machine,
        "load_average_1m_at_end": os.getloadavg()[0],
        "text": {"chars": len(paragraph)},
        "answer_s": answers,
        "tone_delay_ms": args.tone_delay_ms if "tone" in engines else None,
        "tone_repeat": args.tone_repeat if "tone" in engines else None,
        "groups": analyse(samples),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__)
    add_common_args(parser, default_runs=1)
    parser.add_argument("--levels", default=None, help="callers, real model (1,2,3,4,6,8)")
    parser.add_argument("--tone-levels", default=None, help="callers, tone double (1,16,24,32)")
    parser.add_argument(
        "--tone-delay-ms", type=float, default=30.0, help="tone double's time per sentence"
    )
    parser.add_argument(
        "--tone-repeat", type=int, default=1, help="tone double: the paragraph this many times"
    )
    parser.add_argument("--engines", default=",".join(ENGINES), help="model, tone or both")
    parser.add_argument("--starts", default=",".join(STARTS))
    parser.add_argument(
        "--configs", default=",".join(DEFAULT_CONFIGS), help=f"any of {', '.join(CONFIGS)}"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KOKORO_NAME=VALUE",
        help="setting for the locally started servers, e.g. KOKORO_SYNTH_WORKERS=2 (repeatable)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def measured() -> dict[str, Any]:
        runs = resolve_runs(args, quick_runs=1)
        return measure(args, runs, parse_env(args.server_env))

    return run_benchmark(NAME, args, measured, plot)


def plot(png: Path, result: dict[str, Any]) -> None:
    env = result.get("server_env") or {}
    settings = ", ".join(f"{k}={v}" for k, v in env.items()) or "default server settings"
    machine = result["machine"]
    load = machine.get("load_average_1m_at_start")
    busy = f", load average {load:.1f} at start" if load is not None else ""
    title = f"Callers on {machine['usable_cores']} cores{busy}: FIFO vs deadline ({settings})"
    plots.playback_grid(png, title, result["groups"])


if __name__ == "__main__":
    sys.exit(main())

"""GPU benchmark, ready for any CUDA machine: one command, three figures of the real server.

    python -m bench.gpu                       # starts container/serve here, KOKORO_PROVIDER=cuda
    python -m bench.gpu --base-url http://127.0.0.1:8080   # a server already running
    python -m bench.gpu --provider auto --runs 3 --levels 1,2 --rounds 1   # CPU dry run
    python -m bench.gpu --sentence "Your order shipped today."   # your own typical sentence

Needs `onnxruntime-gpu` (container/requirements-gpu.txt) and the fp32 weights (`make weights`,
or KOKORO_MODEL_DIR) for a real figure. It starts the real server (the one SageMaker runs) on
127.0.0.1 with the provider asked for, so `cuda` fails loudly instead of measuring the CPU,
and prints:

1. TTFA p50/p95 of one sentence: time from sending the text to the first audio byte, one
   session after another, over the container's bidirectional WebSocket route;
2. real-time factor: the server's synthesis time over the audio duration (its
   `synthesis_complete` fields), median and p95, plus wall time over audio;
3. concurrent sessions held: N sessions at once, each speaking the sentence, N growing over
   `--levels`; the largest N whose p95 TTFA stays within `--budget-ms` (300 ms).

The provider in use is read from the server's /ping body, so a table can never claim the GPU
for a CPU run. Numbers go to stdout and bench/results/gpu.json with the machine (load
average, GPU name from nvidia-smi when present).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from devkit.local_stack import tts_server
from devkit.paths import OUT_DIR
from devkit.stats import percentile
from devkit.tts_client import StreamResult, stream_session, websocket_transport

SENTENCE = "The quick brown fox jumps over the lazy dog, and then it runs back home."
DEFAULT_LEVELS = (1, 2, 4, 8, 12, 16, 24, 32)
RESULTS = Path(__file__).resolve().parent / "results" / "gpu.json"


class GpuBenchError(RuntimeError):
    """The benchmark cannot run as asked."""


@dataclass
class Level:
    sessions: int
    ttfa_ms: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def p95_ms(self) -> float | None:
        return percentile(self.ttfa_ms, 95.0) if self.ttfa_ms else None

    def held(self, budget_ms: float) -> bool:
        p95 = self.p95_ms
        return self.failures == 0 and p95 is not None and p95 <= budget_ms


@dataclass
class GpuReport:
    provider: str
    ttfa_ms: list[float]
    rtf: list[float]  # server synthesis time / audio duration, per sentence
    wall_rtf: list[float]  # session wall time / audio duration
    levels: list[Level]
    budget_ms: float
    machine: dict[str, Any]

    @property
    def sessions_held(self) -> int:
        return sessions_held(self.levels, self.budget_ms)


def sessions_held(levels: Sequence[Level], budget_ms: float) -> int:
    """The largest level held, counting only up to the first level that is not (a level
    that passes after a failing one is noise, not capacity)."""
    held = 0
    for level in sorted(levels, key=lambda lv: lv.sessions):
        if not level.held(budget_ms):
            break
        held = level.sessions
    return held


def _stat(values: Sequence[float], q: float) -> str:
    return "-" if not values else f"{percentile(values, q):.1f}"


def render(report: GpuReport) -> str:
    lines = [
        f"provider in use: {report.provider}",
        f"machine: {report.machine.get('gpu') or 'no NVIDIA GPU seen'}; load average "
        f"{report.machine.get('load_average')}",
        "",
        f"{'figure':<34}{'p50':>10}{'p95':>10}{'n':>6}",
        f"{'TTFA one sentence (ms)':<34}{_stat(report.ttfa_ms, 50):>10}"
        f"{_stat(report.ttfa_ms, 95):>10}{len(report.ttfa_ms):>6}",
        f"{'real-time factor (synthesis)':<34}{_stat(report.rtf, 50):>10}"
        f"{_stat(report.rtf, 95):>10}{len(report.rtf):>6}",
        f"{'real-time factor (wall)':<34}{_stat(report.wall_rtf, 50):>10}"
        f"{_stat(report.wall_rtf, 95):>10}{len(report.wall_rtf):>6}",
        "",
        f"{'sessions':>8}{'p50 TTFA ms':>14}{'p95 TTFA ms':>14}{'failed':>8}  held",
    ]
    for level in report.levels:
        mark = "yes" if level.held(report.budget_ms) else "no"
        lines.append(
            f"{level.sessions:>8}{_stat(level.ttfa_ms, 50):>14}{_stat(level.ttfa_ms, 95):>14}"
            f"{level.failures:>8}  {mark}"
        )
    lines += [
        "",
        f"concurrent sessions held at p95 TTFA <= {report.budget_ms:g} ms: {report.sessions_held}",
    ]
    return "\n".join(lines)


def provider_from_ping(base_url: str) -> str:
    """The provider the server reports in its /ping body ('unknown' from an older server)."""
    with urllib.request.urlopen(f"{base_url}/ping", timeout=5) as response:
        body = response.read()
    try:
        data = json.loads(body)
    except ValueError:
        return "unknown (no JSON /ping body)"
    provider = data.get("provider") if isinstance(data, dict) else None
    return str(provider) if provider else "unknown (the server does not report it)"


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    smi = shutil.which("nvidia-smi")
    if smi:
        out = subprocess.run(
            [smi, "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        info["gpu"] = out.stdout.strip() or out.stderr.strip()
    return info


async def _one(base_url: str, sentence: str) -> StreamResult:
    return await stream_session(websocket_transport(base_url), [sentence], timeout_s=120.0)


def _rtf(result: StreamResult) -> tuple[list[float], float | None]:
    per_sentence = [
        s.complete["synth_ms"] / 1000 / s.complete["duration_s"]
        for s in result.sentences
        if s.complete.get("duration_s")
    ]
    audio_s = sum(s.complete.get("duration_s", 0.0) for s in result.sentences)
    return per_sentence, (result.total_s / audio_s if audio_s else None)


async def measure(
    base_url: str,
    runs: int,
    warmup: int,
    levels: Sequence[int],
    rounds: int,
    budget_ms: float,
    sentence: str = SENTENCE,
) -> GpuReport:
    for _ in range(warmup):  # first calls build kernels/cuDNN plans: not part of the figure
        await _one(base_url, sentence)
    ttfa, rtf, wall = [], [], []
    for _ in range(runs):
        result = await _one(base_url, sentence)
        if result.first_audio_s is None or result.errors:
            raise GpuBenchError(f"a session returned no audio: {result.errors}")
        ttfa.append(result.first_audio_s * 1000)
        per_sentence, wall_rtf = _rtf(result)
        rtf += per_sentence
        if wall_rtf is not None:
            wall.append(wall_rtf)
    swept: list[Level] = []
    for n in levels:
        level = Level(n)
        for _ in range(rounds):
            outcomes = await asyncio.gather(
                *(_one(base_url, sentence) for _ in range(n)), return_exceptions=True
            )
            for outcome in outcomes:
                if isinstance(outcome, BaseException) or outcome.first_audio_s is None:
                    level.failures += 1  # e.g. `busy` from admission control
                else:
                    level.ttfa_ms.append(outcome.first_audio_s * 1000)
        swept.append(level)
        if not level.held(budget_ms):
            break  # past capacity: larger levels only take longer to say the same
    return GpuReport(provider_from_ping(base_url), ttfa, rtf, wall, swept, budget_ms, machine())


def _levels(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise GpuBenchError(f"--levels must be integers like 1,2,4, got {text!r}") from None
    if not levels or levels[0] < 1:
        raise GpuBenchError(f"--levels must be positive integers, got {text!r}")
    return levels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu", description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", help="measure a running server instead of starting one")
    parser.add_argument(
        "--provider",
        default="cuda",
        choices=("cuda", "auto"),
        help="KOKORO_PROVIDER of the started server: cuda (no CPU fallback) or auto",
    )
    parser.add_argument("--runs", type=int, default=30, help="sequential TTFA runs")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--levels", default=",".join(map(str, DEFAULT_LEVELS)))
    parser.add_argument("--rounds", type=int, default=3, help="bursts of N sessions per level")
    parser.add_argument("--budget-ms", type=float, default=300.0)
    parser.add_argument(
        "--sentence",
        default=SENTENCE,
        help="what every session speaks (default: %(default)r)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra KOKORO_* setting for the started server (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        levels = _levels(args.levels)
        if args.runs < 1 or args.rounds < 1 or args.warmup < 0:
            raise GpuBenchError("--runs and --rounds must be at least 1, --warmup at least 0")
        if not args.sentence.strip():
            raise GpuBenchError("--sentence must hold some text")
        env = {"KOKORO_PROVIDER": args.provider}
        for item in args.server_env:
            key, sep, value = item.partition("=")
            if not sep or not key.startswith("KOKORO_"):
                raise GpuBenchError(f"--server-env takes KOKORO_NAME=value, got {item!r}")
            env[key] = value

        def run(base_url: str) -> GpuReport:
            return asyncio.run(
                measure(
                    base_url,
                    args.runs,
                    args.warmup,
                    levels,
                    args.rounds,
                    args.budget_ms,
                    args.sentence,
                )
            )

        if args.base_url:
            report = run(args.base_url.rstrip("/"))
        else:
            with tts_server(env, log_path=OUT_DIR / "bench-gpu-server.log") as base_url:
                report = run(base_url)
    except GpuBenchError as exc:
        print(f"bench.gpu: {exc}", file=sys.stderr)
        return 2
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    data = asdict(report) | {"sessions_held": report.sessions_held, "sentence": args.sentence}
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nsaved {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

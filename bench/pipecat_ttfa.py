"""Benchmark: time to first audio through Pipecat and LiveKit vs the bare client and the agent.

Same Kokoro server (real model, CPU, loopback), same text (the agent's replayed answer),
same token rate, same tokens. Paths, run interleaved after a warm-up:

- `bare client`: kokoro_stream's WebSocket session alone (the one protocol client both
  integrations use), tokens sent at the rate, `close`; from the first token to the first
  audio frame. Its session is open before the clock starts, like a Pipecat bot's.
- `livekit`: the LiveKit plugin's `SynthesizeStream` (examples/livekit_worker.py `speak`)
  fed the tokens; from the first token to the first SynthesizedAudio. A LiveKit stream
  opens its own session, inside the measured time.

- `agent stream`: the voice agent (`python -m voice_agent`, replay text source) in `stream`
  mode, measured at its caller over HTTP/SSE from the request (bench/agent_ttfa.py's way).
- `pipecat`: a Pipecat pipeline (examples/pipecat_bot.py: scripted LLM stand-in ->
  KokoroWebSocketTTSService -> recorder), measured from the stand-in's first moment to the
  first audio frame at the end of the pipeline. Its session is open before the turn, as a
  bot's long-lived session is; the agent opens its TTS session inside the request.

Total: until the last audio arrived (agent: until its `done` event).

    python -m bench.pipecat_ttfa [--runs N] [--rate 40] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.audible import first_sound_s
from bench.common import RESULTS_DIR, BenchError, Sample, run_interleaved, write_result
from bench.machine import machine_info
from bench.stats import summarize
from bench.tables import format_markdown, format_text, timing_table
from devkit.paths import OUT_DIR

NAME = "pipecat_ttfa"
PROMPT = "Where is my order?"


@contextmanager
def tts_and_agent(rate: float, log_dir: Path) -> Iterator[tuple[str, str]]:
    """The Kokoro server and the voice agent on loopback; yields (tts ws URL, agent URL)."""
    from devkit.local_stack import tts_server
    from devkit.processes import child_process, free_port, wait_healthy
    from devkit.tts_client import ws_url

    with tts_server(log_path=log_dir / "pipecat_bench_tts.log") as tts_base:
        port = free_port()
        env = dict(
            os.environ,
            HOST="127.0.0.1",
            PORT=str(port),
            TTS_URL=ws_url(tts_base),
            AGENT_TEXT_SOURCE="replay",
            AGENT_REPLAY_TOKENS_PER_S=str(rate),
        )
        agent_url = f"http://127.0.0.1:{port}"
        log = log_dir / "pipecat_bench_agent.log"
        with child_process([sys.executable, "-m", "voice_agent"], env, log) as agent:
            wait_healthy(agent_url, 60, agent)
            yield ws_url(tts_base), agent_url


def build_modes(tts_url: str, agent_url: str, rate: float) -> dict[str, Any]:
    from devkit import agent_client as client
    from examples.pipecat_bot import run_bot
    from pipecat_kokoro import KokoroWebSocketTTSService
    from voice_agent.llm import DEFAULT_REPLAY_ANSWER, replay_tokens

    tokens = replay_tokens(DEFAULT_REPLAY_ANSWER)

    async def agent_stream() -> Sample:
        result = await client.invoke_http(agent_url, {"prompt": PROMPT, "mode": "stream"})
        if not result.ok or result.first_audio_ms is None:
            raise BenchError(f"agent invocation failed: {result.errors}")
        ttfa_s = result.first_audio_ms / 1000
        return {
            "ttfa_s": ttfa_s,
            "first_sound_s": first_sound_s(ttfa_s, result.pcm(), result.sample_rate),
            "total_s": (result.total_ms or 0) / 1000,
        }

    async def pipecat() -> Sample:
        tts = KokoroWebSocketTTSService(url=tts_url)
        result = await run_bot(tts, DEFAULT_REPLAY_ANSWER, tokens_per_s=rate, tokens=tokens)
        return {
            "ttfa_s": result.ttfa_s,
            "first_sound_s": first_sound_s(result.ttfa_s, result.pcm, result.sample_rate),
            "total_s": result.last_audio_s,
        }

    async def bare_client() -> Sample:
        import time

        from kokoro_stream import TtsAudio, TtsControl
        from kokoro_stream.websocket import WebSocketTts

        session = await WebSocketTts(tts_url).open_session(None, "pcm", 24000)
        started = time.perf_counter()

        async def feed() -> None:
            for i, token in enumerate(tokens):
                await asyncio.sleep(max(0.0, started + (i + 1) / rate - time.perf_counter()))
                await session.send_text(token)
            await session.close()

        feeder = asyncio.create_task(feed())
        first = last = None
        async for event in session.events():
            if isinstance(event, TtsAudio):
                last = time.perf_counter()
                first = first or last
            elif isinstance(event, TtsControl) and event.type == "session_end":
                break
        await feeder
        await session.aclose()
        if first is None or last is None:
            raise BenchError("the bare client got no audio")
        return {"ttfa_s": first - started, "total_s": last - started}

    async def livekit() -> Sample:
        from livekit.plugins import kokoro_sagemaker

        from examples.livekit_worker import speak

        tts = kokoro_sagemaker.TTS.websocket(tts_url)
        try:
            spoken = await speak(tts, DEFAULT_REPLAY_ANSWER, tokens_per_s=rate)
        finally:
            await tts.aclose()
        return {"ttfa_s": spoken.ttfa_s, "total_s": spoken.last_audio_s}

    return {
        "bare client": bare_client,
        "pipecat": pipecat,
        "livekit": livekit,
        "agent stream": agent_stream,
    }


def analyse(samples: dict[str, list[Sample]]) -> list[dict[str, Any]]:
    modes = []
    for name, runs in samples.items():
        mode: dict[str, Any] = {
            "key": name,
            "label": name,
            "ttfa": summarize([s["ttfa_s"] for s in runs]),
            "total": summarize([s["total_s"] for s in runs]),
            "samples": runs,
        }
        # A path that does not report its first audible sample gets no first-sound column,
        # never a first-byte figure in it.
        if all("first_sound_s" in s for s in runs):
            mode["first_sound"] = summarize([s["first_sound_s"] for s in runs])
        modes.append(mode)
    return modes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pipecat_ttfa", description=__doc__)
    parser.add_argument("--runs", type=int, default=None, help="runs per path (default 5)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rate", type=float, default=40.0, help="replay tokens per second")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 run")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    runs = args.runs if args.runs is not None else (1 if args.quick else 5)
    if runs < 1 or args.rate <= 0:
        print("error: --runs must be >= 1 and --rate > 0", file=sys.stderr)
        return 2
    try:
        with tts_and_agent(args.rate, OUT_DIR) as (tts_url, agent_url):
            modes = build_modes(tts_url, agent_url, args.rate)
            samples = asyncio.run(run_interleaved(modes, runs, args.warmup))
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = timing_table(
        f"Time to first audio: bare client, Pipecat, LiveKit, the voice agent "
        f"({args.rate:g} tokens/s)",
        analyse(samples),
    )
    print()
    print(format_text(table))
    result = {
        "name": NAME,
        "runs": runs,
        "warmup": args.warmup,
        "tokens_per_s": args.rate,
        "machine": machine_info(),
        "modes": analyse(samples),
        "markdown": format_markdown(table),
    }
    path = write_result(args.results_dir, NAME, result)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Example LiveKit Agents worker that speaks through Kokoro, and a local run without LiveKit.

    # A LiveKit worker (needs a LiveKit server: LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET)
    python examples/livekit_worker.py dev    # Kokoro on SageMaker: KOKORO_ENDPOINT, AWS_REGION
    KOKORO_URL=ws://127.0.0.1:8080 python examples/livekit_worker.py dev   # a local container

    # No LiveKit server: the plugin's stream fed by a scripted LLM stand-in -> WAV + timed words
    python examples/livekit_worker.py speak          # starts this repository's server (checkout)
    python examples/livekit_worker.py speak --url ws://127.0.0.1:8080

The "LLM" of `speak` is a stand-in, not a model: it replays a fixed answer token by token at
a given rate, as an LLM's stream arrives at the TTS. Everything after it is the plugin as a
LiveKit agent uses it (`tts.stream()`, `push_text`, `end_input`, the SynthesizedAudio it yields).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from livekit.agents import Agent, AgentSession, JobContext, WorkerOptions, cli
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from livekit.plugins import kokoro_sagemaker

ANSWER = (
    "Thanks for calling back about your order. It shipped this morning and should arrive "
    "by Thursday afternoon. Is there anything else I can help you with?"
)


def kokoro_tts(url: str | None = None, voice: str | None = None) -> kokoro_sagemaker.TTS:
    """The one line a worker swaps: a local container, or the deployed SageMaker endpoint."""
    url = url or os.environ.get("KOKORO_URL")
    voice = voice or os.environ.get("KOKORO_VOICE")
    if url:
        return kokoro_sagemaker.TTS.websocket(url, voice=voice)
    return kokoro_sagemaker.TTS.sagemaker(
        os.environ.get("KOKORO_ENDPOINT", "kokoro-voice-tts"), voice=voice
    )


async def entrypoint(ctx: JobContext) -> None:
    """A LiveKit worker: joins the room and greets (add your STT and LLM to AgentSession)."""
    await ctx.connect()
    session: AgentSession[None] = AgentSession(tts=kokoro_tts())
    await session.start(
        agent=Agent(instructions="You are a helpful voice assistant."), room=ctx.room
    )
    session.say("Hello! I speak through Kokoro, streamed sentence by sentence.")


@dataclass
class Spoken:
    ttfa_s: float  # from the first token to the first audio
    last_audio_s: float  # ... to the last audio
    audio_s: float
    words: list[tuple[str, float]] = field(default_factory=list)  # (text, start s)
    wav: Path | None = None


async def speak(
    tts: kokoro_sagemaker.TTS,
    answer: str = ANSWER,
    *,
    tokens_per_s: float = 40.0,
    out: Path | None = None,
) -> Spoken:
    """The answer's tokens into one stream as an LLM would push them; audio and words out."""
    tokens = re.findall(r"\s*\S+", answer)
    stream = tts.stream()
    started = time.perf_counter()

    async def feed() -> None:
        for i, token in enumerate(tokens):
            await asyncio.sleep(max(0.0, started + (i + 1) / tokens_per_s - time.perf_counter()))
            stream.push_text(token)
        stream.end_input()

    feeder = asyncio.create_task(feed())
    pcm = bytearray()
    first: float | None = None
    last = started
    words: list[tuple[str, float]] = []
    async for audio in stream:
        last = time.perf_counter()
        first = first or last
        pcm.extend(bytes(audio.frame.data))
        for word in audio.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []):
            words.append((str(word), float(word.start_time)))
    await feeder
    await stream.aclose()
    if first is None:
        raise RuntimeError("no audio came back (see the errors logged above)")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(out), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(tts.sample_rate)
            wav.writeframes(bytes(pcm))
    return Spoken(first - started, last - started, len(pcm) / (2 * tts.sample_rate), words, out)


@contextmanager
def local_server() -> Iterator[str]:
    """This repository's Kokoro server on 127.0.0.1 (only when run from a checkout)."""
    try:
        from devkit.local_stack import tts_server
    except ImportError:
        sys.exit("no --url, and not in the repository to start a server")
    print("Starting the local Kokoro server (real Kokoro-82M on CPU) ...")
    with tts_server() as base_url:
        yield base_url.replace("http://", "ws://")


def main_speak(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="livekit_worker.py speak")
    parser.add_argument("--url", default=None, help="a running Kokoro server (ws://host:port)")
    parser.add_argument("--voice", default=None)
    parser.add_argument("--answer", default=ANSWER)
    parser.add_argument("--tokens-per-s", type=float, default=40.0)
    parser.add_argument("--out", type=Path, default=Path("out") / "livekit-worker.wav")
    args = parser.parse_args(argv)

    async def go(url: str) -> Spoken:
        tts = kokoro_tts(url, args.voice)
        try:
            return await speak(tts, args.answer, tokens_per_s=args.tokens_per_s, out=args.out)
        finally:
            await tts.aclose()

    if args.url:
        spoken = asyncio.run(go(args.url))
    else:
        with local_server() as url:
            spoken = asyncio.run(go(url))
    print(" ".join(f"{text.strip()}@{start:.2f}s" for text, start in spoken.words))
    print(
        f"time to first audio {spoken.ttfa_s * 1000:.0f} ms, {spoken.audio_s:.1f} s of audio, "
        f"{len(spoken.words)} timed words -> {spoken.wav}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["speak"]:
        return main_speak(argv[1:])
    cli.run_app(WorkerOptions(entrypoint_fnc=entrypoint))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Example Pipecat bot that speaks through Kokoro: scripted LLM stand-in -> Kokoro TTS -> WAV.

The "LLM" here is a stand-in, not a model: it replays a fixed answer as LLM text frames at
a token rate, so the bot runs with no external service. Everything after it is what a real
bot runs: Pipecat's pipeline and the Kokoro TTS service from `pipecat-kokoro-sagemaker`.

    # Local, no AWS: starts this repository's Kokoro server on 127.0.0.1 (real model, CPU)
    python -m examples.pipecat_bot                   # -> out/pipecat-bot.wav
    # A Kokoro container already running (docker run -p 8080:8080 IMAGE serve)
    python -m examples.pipecat_bot --url ws://127.0.0.1:8080
    # The deployed SageMaker endpoint (AWS credentials from the usual chain)
    python -m examples.pipecat_bot --sagemaker-endpoint kokoro-tts --region us-east-1 \
        --voice af_heart
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loguru import logger
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.tts_service import TTSService
from pipecat.workers.runner import WorkerRunner

from pipecat_kokoro import KokoroSageMakerTTSService, KokoroWebSocketTTSService

ANSWER = (
    "Thanks for calling back about your order. It shipped this morning and should arrive "
    "by Thursday afternoon. Is there anything else I can help you with?"
)
SAMPLE_RATE = 24000


class ScriptedLLM(FrameProcessor):
    """Stands in for an LLM service (it is not a model): `reply()` pushes a fixed answer as
    LLMFullResponseStartFrame, one LLMTextFrame per token at `tokens_per_s`, and
    LLMFullResponseEndFrame, as an LLM service does while it streams."""

    def __init__(self, answer: str, tokens_per_s: float = 40.0, tokens: list[str] | None = None):
        super().__init__()
        if not tokens_per_s > 0:
            raise ValueError(f"tokens_per_s must be > 0, got {tokens_per_s}")
        self.tokens = tokens or re.findall(r"\s*\S+", answer)
        if not self.tokens:
            raise ValueError("ScriptedLLM needs a non-empty answer")
        self.tokens_per_s = tokens_per_s
        self.started_at: float | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)

    async def reply(self) -> None:
        loop = asyncio.get_running_loop()
        self.started_at = time.perf_counter()
        start = loop.time()
        await self.push_frame(LLMFullResponseStartFrame())
        for i, token in enumerate(self.tokens):
            # Scheduled against a fixed start, so sleep overshoot does not accumulate.
            await asyncio.sleep(max(0.0, start + (i + 1) / self.tokens_per_s - loop.time()))
            await self.push_frame(LLMTextFrame(token))
        await self.push_frame(LLMFullResponseEndFrame())


class WavRecorder(FrameProcessor):
    """The bot's output: keeps its audio (for a WAV) and when the first of it arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.pcm = bytearray()
        self.sample_rate = SAMPLE_RATE
        self.first_audio_at: float | None = None
        self.last_audio_at: float | None = None
        self.done = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.last_audio_at = time.perf_counter()
            self.first_audio_at = self.first_audio_at or self.last_audio_at
            self.sample_rate = frame.sample_rate
            self.pcm.extend(frame.audio)
        elif isinstance(frame, TTSStoppedFrame):
            self.done.set()
        await self.push_frame(frame, direction)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(self.sample_rate)
            out.writeframes(bytes(self.pcm))


@dataclass(frozen=True)
class BotResult:
    ttfa_s: float  # from the LLM's first moment to the first audio at the pipeline's end
    last_audio_s: float  # ... to the last audio
    audio_s: float
    wav: Path | None
    pcm: bytes = b""  # what the bot said (16-bit mono), to find its first audible sample
    sample_rate: int = SAMPLE_RATE


async def run_bot(
    tts: TTSService,
    answer: str = ANSWER,
    *,
    tokens_per_s: float = 40.0,
    tokens: list[str] | None = None,
    out: Path | None = None,
) -> BotResult:
    llm = ScriptedLLM(answer, tokens_per_s, tokens)
    recorder = WavRecorder()
    worker = PipelineWorker(
        Pipeline([llm, tts, recorder]),
        params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE, enable_metrics=True),
        cancel_on_idle_timeout=False,
    )

    tasks: list[asyncio.Task[None]] = []

    async def reply_then_end() -> None:
        await llm.reply()
        await recorder.done.wait()
        await worker.queue_frame(EndFrame())

    async def speak(worker: Any, frame: Frame) -> None:
        tasks.append(asyncio.create_task(reply_then_end()))

    worker.add_event_handler("on_pipeline_started", speak)

    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await runner.run()
    if recorder.first_audio_at is None or recorder.last_audio_at is None or not llm.started_at:
        raise RuntimeError("the bot produced no audio (see the errors logged above)")
    if out is not None:
        recorder.write(out)
    return BotResult(
        ttfa_s=recorder.first_audio_at - llm.started_at,
        last_audio_s=recorder.last_audio_at - llm.started_at,
        audio_s=len(recorder.pcm) / (2 * recorder.sample_rate),
        wav=out,
        pcm=bytes(recorder.pcm),
        sample_rate=recorder.sample_rate,
    )


def kokoro_tts(args: argparse.Namespace, url: str | None) -> TTSService:
    """The one line a bot swaps: the deployed endpoint, or the same server locally."""
    if args.sagemaker_endpoint:
        return KokoroSageMakerTTSService(
            endpoint_name=args.sagemaker_endpoint, region=args.region, voice=args.voice
        )
    return KokoroWebSocketTTSService(url=url or args.url, voice=args.voice)


@contextmanager
def local_server() -> Iterator[str]:
    """This repository's Kokoro server on 127.0.0.1 (only when run from a checkout)."""
    try:
        from devkit.local_stack import tts_server
    except ImportError:
        sys.exit("no --url or --sagemaker-endpoint, and not in the repository to start a server")
    print("Starting the local Kokoro server (real Kokoro-82M on CPU) ...")
    with tts_server() as base_url:
        yield base_url.replace("http://", "ws://")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m examples.pipecat_bot", description=__doc__)
    parser.add_argument("--url", default=None, help="a running Kokoro server (ws://host:port)")
    parser.add_argument("--sagemaker-endpoint", default=None, help="a deployed endpoint's name")
    parser.add_argument("--region", default=None, help="the endpoint's region")
    parser.add_argument("--voice", default=None, help="voice (default: the server's)")
    parser.add_argument("--answer", default=ANSWER, help="what the scripted LLM says")
    parser.add_argument("--tokens-per-s", type=float, default=40.0)
    parser.add_argument("--out", type=Path, default=Path("out") / "pipecat-bot.wav")
    args = parser.parse_args(argv)
    if args.url and args.sagemaker_endpoint:
        parser.error("give --url or --sagemaker-endpoint, not both")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Pipecat logs through loguru, whose default handler prints DEBUG lines (every frame
    # processor's setup) to stderr: a bot keeps INFO and up, so its result is readable.
    logger.remove()
    logger.add(sys.stderr, level="INFO")

    async def go(url: str | None) -> BotResult:
        tts = kokoro_tts(args, url)
        return await run_bot(tts, args.answer, tokens_per_s=args.tokens_per_s, out=args.out)

    if args.url or args.sagemaker_endpoint:
        result = asyncio.run(go(None))
    else:
        with local_server() as url:
            result = asyncio.run(go(url))
    print(
        f"time to first audio {result.ttfa_s * 1000:.0f} ms, "
        f"{result.audio_s:.1f} s of audio -> {result.wav}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A real Pipecat pipeline around one TTS service, driven from a test.

    [upstream recorder] -> [TTS service] -> [downstream recorder]

Frames are queued at the pipeline's source exactly as an LLM service would push them
(LLMFullResponseStartFrame, LLMTextFrame deltas, LLMFullResponseEndFrame); the recorders keep
every frame that reaches them (downstream: audio, text, metrics; upstream: errors).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from typing import Any, Self

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    MetricsFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSTextFrame,
)
from pipecat.metrics.metrics import TTFBMetricsData
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

_TOKEN = re.compile(r"\s*\S+")


def llm_deltas(text: str) -> list[str]:
    """LLM-sized deltas: each word with its leading space."""
    return _TOKEN.findall(text)


class Recorder(FrameProcessor):
    """Keeps the frames travelling in one direction and passes everything on."""

    def __init__(self, direction: FrameDirection) -> None:
        super().__init__()
        self.direction = direction
        self.frames: list[Frame] = []
        self._changed = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction == self.direction:
            self.frames.append(frame)
            self._changed.set()
        await self.push_frame(frame, direction)

    async def wait_for(
        self, predicate: Callable[[Frame], bool], *, after: int = 0, timeout: float = 60.0
    ) -> Frame:
        """The first recorded frame (from index `after` on) matching `predicate`."""

        async def scan() -> Frame:
            while True:
                for frame in self.frames[after:]:
                    if predicate(frame):
                        return frame
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)


class BotPipeline:
    def __init__(
        self, tts: FrameProcessor, *, sample_rate: int = 24000, usage_metrics: bool = False
    ) -> None:
        self.tts = tts
        self.up = Recorder(FrameDirection.UPSTREAM)
        self.down = Recorder(FrameDirection.DOWNSTREAM)
        self.worker = PipelineWorker(
            Pipeline([self.up, tts, self.down]),
            params=PipelineParams(
                audio_out_sample_rate=sample_rate,
                enable_metrics=True,
                enable_usage_metrics=usage_metrics,
            ),
            cancel_on_idle_timeout=False,
        )
        self._started = asyncio.Event()
        self._run: asyncio.Task[Any] | None = None

        @self.worker.event_handler("on_pipeline_started")
        async def on_started(worker: Any, frame: Frame) -> None:
            self._started.set()

    async def __aenter__(self) -> Self:
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(self.worker)
        self._run = asyncio.create_task(runner.run())
        await asyncio.wait_for(self._started.wait(), 60)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._run is not None
        if exc[0] is None:
            await self.worker.queue_frame(EndFrame())
            await asyncio.wait_for(self._run, 120)
        else:
            await self.worker.cancel()
            await asyncio.wait_for(self._run, 30)

    async def queue(self, *frames: Frame) -> None:
        for frame in frames:
            await self.worker.queue_frame(frame)

    async def reply(self, text: str, *, tokens_per_s: float | None = None) -> int:
        """Queue one LLM reply (start, deltas, end); returns the downstream index it began at."""
        mark = len(self.down.frames)
        await self.queue(LLMFullResponseStartFrame())
        for delta in llm_deltas(text):
            await self.queue(LLMTextFrame(delta))
            if tokens_per_s:
                await asyncio.sleep(1 / tokens_per_s)
        await self.queue(LLMFullResponseEndFrame())
        return mark

    async def speak(self, text: str) -> int:
        """One reply, spoken to its end (its TTSStoppedFrame); returns where it began."""
        mark = await self.reply(text)
        await self.turn_done(mark)
        return mark

    async def interrupt(self) -> None:
        await self.worker.queue_frame(InterruptionFrame())

    async def turn_done(self, after: int = 0, timeout: float = 90.0) -> TTSStoppedFrame:
        frame = await self.down.wait_for(
            lambda f: isinstance(f, TTSStoppedFrame), after=after, timeout=timeout
        )
        assert isinstance(frame, TTSStoppedFrame)
        return frame


# ---- reading what came out --------------------------------------------------------------


def tts_frames(frames: Sequence[Frame]) -> list[Frame]:
    kinds = (TTSStartedFrame, TTSAudioRawFrame, TTSTextFrame, TTSStoppedFrame)
    return [f for f in frames if isinstance(f, kinds)]


def audio_bytes(frames: Sequence[Frame]) -> int:
    return sum(len(f.audio) for f in frames if isinstance(f, TTSAudioRawFrame))


def audio_pcm(frames: Sequence[Frame]) -> bytes:
    """The audio the frames carry, joined in order."""
    return b"".join(f.audio for f in frames if isinstance(f, TTSAudioRawFrame))


def spoken_text(frames: Sequence[Frame]) -> str:
    return " ".join(f.text.strip() for f in frames if isinstance(f, TTSTextFrame))


def presentation_times(frames: Sequence[Frame]) -> list[int]:
    """Each frame's `pts` (ns on the playback clock), in order; every frame must have one."""
    times = [f.pts for f in frames if f.pts is not None]
    assert len(times) == len(frames), f"frames without a pts: {frames}"
    return times


def ttfb_reports(frames: Sequence[Frame], processor: FrameProcessor) -> list[float]:
    return [
        data.value
        for f in frames
        if isinstance(f, MetricsFrame)
        for data in f.data
        if isinstance(data, TTFBMetricsData) and data.processor == processor.name and data.value > 0
    ]

"""The voice agent's caller: one invocation over SSE (POST /invocations), over /ws, or
against a deployed AgentCore runtime, with client-side timings.

The events are read by devkit.agent_events (SSE over HTTP, /ws, or the deployed runtime's
StreamingBody) and the audio saved by devkit.wav. The CLI is `devkit.caller`.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from kokoro_stream.messages import DEFAULT_SAMPLE_RATE
from kokoro_stream.region import region_from_env
from websockets.asyncio.client import connect

from devkit.agent_events import (
    Event,
    is_terminal,
    runtime_events,
    sse_audio,
    sse_events,
    ws_events,
)
from devkit.wav import wav_frames, write_wav


@dataclass
class InvocationResult:
    """What one invocation delivered, with client-side timings from the request start."""

    mode: str
    start: float = field(default_factory=time.perf_counter)
    order: list[str] = field(default_factory=list)
    text: str = ""
    audio: dict[int, bytearray] = field(default_factory=dict)
    sentences: dict[int, str] = field(default_factory=dict)
    audio_format: str = "pcm"
    sample_rate: int = DEFAULT_SAMPLE_RATE
    first_text_ms: float | None = None
    first_audio_ms: float | None = None
    total_ms: float | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    words: list[dict[str, Any]] = field(default_factory=list)  # `words` events (captions)
    interrupted: dict[str, Any] | None = None  # /ws: the agent's `interrupted` event

    @property
    def ok(self) -> bool:
        return bool(self.metrics) and not any(e.get("fatal", True) for e in self.errors)

    @property
    def audio_bytes(self) -> int:
        return sum(len(b) for b in self.audio.values())

    def pcm(self) -> bytes:
        return b"".join(bytes(self.audio[i]) for i in sorted(self.audio))

    def _ms(self) -> float:
        return round((time.perf_counter() - self.start) * 1000, 1)

    def add(self, event: dict[str, Any], audio: bytes | None = None) -> None:
        kind = str(event.get("type"))
        self.order.append(kind)
        if kind == "text":
            self.first_text_ms = self.first_text_ms or self._ms()
            self.text += str(event.get("delta", ""))
        elif kind == "audio":
            self.first_audio_ms = self.first_audio_ms or self._ms()
            data = audio if audio is not None else sse_audio(event)
            self.audio.setdefault(int(event["index"]), bytearray()).extend(data)
            self.audio_format = str(event.get("format", self.audio_format))
            self.sample_rate = int(event.get("sample_rate", self.sample_rate))
        elif kind == "sentence":
            self.sentences[int(event["index"])] = str(event.get("text", ""))
        elif kind == "done":
            self.metrics = dict(event.get("metrics", {}))
            self.total_ms = self._ms()
        elif kind == "words":
            self.words.append(event)
        elif kind == "interrupted":
            self.interrupted = event
            self.total_ms = self._ms()
        elif kind == "error":
            self.errors.append(event)
            if event.get("fatal", True):
                self.total_ms = self._ms()

    def write_wav(self, path: Path) -> None:
        """One file for the whole answer: PCM and per-sentence WAVs are joined into one WAV,
        G.711 goes into a mu-law/A-law WAV; MP3 sentences are concatenated (MP3 is frame
        based) and so are Ogg Opus sentences (one stream each: a chained Ogg file)."""
        if self.audio_format in ("mp3", "opus"):
            path.write_bytes(self.pcm())
        elif self.audio_format == "wav":
            frames = wav_frames(bytes(self.audio[i]) for i in sorted(self.audio))
            write_wav(path, frames, self.sample_rate)
        else:
            write_wav(path, self.pcm(), self.sample_rate, self.audio_format)


FILE_SUFFIXES = {"mp3": "mp3", "opus": "opus"}  # every other format is saved as WAV


async def read_answer(events: AsyncIterator[Event], result: InvocationResult) -> InvocationResult:
    """Add events to `result` up to the answer's last one."""
    async for event, audio in events:
        result.add(event, audio)
        if is_terminal(event):
            break
    return result


async def invoke_http(
    base_url: str,
    payload: dict[str, Any],
    timeout_s: float = 120.0,
    client: httpx.AsyncClient | None = None,
) -> InvocationResult:
    """POST /invocations and read the SSE stream (httpx-sse reassembles the events)."""
    if client is None:
        timeout = httpx.Timeout(timeout_s, connect=10.0)
        async with httpx.AsyncClient(timeout=timeout) as own:
            return await invoke_http(base_url, payload, timeout_s, own)
    result = InvocationResult(mode=str(payload.get("mode", "stream")))
    return await read_answer(sse_events(client, base_url, payload), result)


async def invoke_ws(
    ws_url: str, payload: dict[str, Any], timeout_s: float = 120.0
) -> InvocationResult:
    """Send one invocation over /ws; each `audio` header is followed by its binary frame."""
    result = InvocationResult(mode=str(payload.get("mode", "stream")))
    async with asyncio.timeout(timeout_s), connect(ws_url, max_size=None) as ws:
        await ws.send(json.dumps(payload))
        return await read_answer(ws_events(ws), result)


def read_runtime_stream(chunks: Iterable[bytes], mode: str) -> InvocationResult:
    result = InvocationResult(mode=mode)
    for event, audio in runtime_events(chunks):
        result.add(event, audio)
        if is_terminal(event):
            break
    return result


def invoke_runtime(
    runtime_arn: str,
    payload: dict[str, Any],
    region: str | None = None,
    session_id: str | None = None,
    client: Any = None,
) -> InvocationResult:
    """Invoke a deployed AgentCore runtime (boto3 `bedrock-agentcore`). Region: `region`
    (--region), else AWS_REGION, else AWS_DEFAULT_REGION, else botocore's profile config."""
    if client is None:
        import boto3

        # botocore reads AWS_DEFAULT_REGION but not AWS_REGION: resolve it here.
        client = boto3.client("bedrock-agentcore", region_name=region or region_from_env())
    start = time.perf_counter()
    response = client.invoke_agent_runtime(
        agentRuntimeArn=runtime_arn,
        runtimeSessionId=session_id or f"voice-agent-client-{uuid.uuid4()}",
        payload=json.dumps(payload).encode(),
        contentType="application/json",
        accept="text/event-stream",
    )
    body = response["response"]
    result = read_runtime_stream(body.iter_chunks(chunk_size=4096), str(payload.get("mode")))
    result.start = start  # client timings from before the call, not after the headers
    return result


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:8.1f}"


def print_result(r: InvocationResult, out: Any = None) -> None:
    out = out or sys.stdout
    m = r.metrics
    print(f"mode={r.mode} text_source={m.get('text_source', '?')}", file=out)
    print(
        f"  client: first text {_fmt(r.first_text_ms)} ms, first audio "
        f"{_fmt(r.first_audio_ms)} ms, total {_fmt(r.total_ms)} ms, "
        f"{r.audio_bytes} audio bytes in {len(r.audio)} sentences",
        file=out,
    )
    if m:
        print(
            f"  agent:  first text {_fmt(m.get('time_to_first_text_ms'))} ms, first audio "
            f"{_fmt(m.get('time_to_first_audio_ms'))} ms, total {_fmt(m.get('total_ms'))} ms, "
            f"{m.get('audio_seconds')} s audio",
            file=out,
        )
    for e in r.errors:
        print(f"  error {e.get('code')}: {e.get('message')}", file=out)


def compare_table(results: dict[str, list[InvocationResult]]) -> str:
    """Median client-side timings per mode, and the stream speed-up in time to first audio."""
    lines = [
        f"{'mode':<8}{'runs':>5}{'first text ms':>15}{'first audio ms':>16}{'total ms':>10}"
        f"{'audio s':>9}",
    ]
    med: dict[str, float] = {}
    for mode, runs in results.items():
        ok = [r for r in runs if r.first_audio_ms is not None]
        ftxt = statistics.median([r.first_text_ms or 0.0 for r in ok]) if ok else float("nan")
        faud = statistics.median([r.first_audio_ms or 0.0 for r in ok]) if ok else float("nan")
        tot = statistics.median([r.total_ms or 0.0 for r in ok]) if ok else float("nan")
        aud = statistics.median([r.metrics.get("audio_seconds", 0.0) for r in ok]) if ok else 0
        med[mode] = faud
        lines.append(f"{mode:<8}{len(runs):>5}{ftxt:>15.1f}{faud:>16.1f}{tot:>10.1f}{aud:>9.2f}")
    if med.get("stream") and med.get("batch"):
        lines.append(
            f"first audio: stream is {med['batch'] / med['stream']:.2f}x sooner than batch"
        )
    return "\n".join(lines)


MODES = ("stream", "batch")


async def compare_modes(
    invoke: Callable[[str], Awaitable[InvocationResult]], runs: int
) -> dict[str, list[InvocationResult]]:
    """`runs` invocations of each mode; which mode goes first alternates run by run, so slow
    drifts of machine load hit both alike."""
    results: dict[str, list[InvocationResult]] = {mode: [] for mode in MODES}
    for run in range(runs):
        for mode in MODES if run % 2 == 0 else MODES[::-1]:
            results[mode].append(await invoke(mode))
    return results

"""Streaming through the agent's TTS transports (SageMaker bidirectional, or its WebSocket one).

The benchmarks reuse the agent's transport classes (`voice_agent.tts`) rather than carrying a
second SageMaker client, so a deployed-endpoint number measures the production client. The
result has the same shape as `demo.tts_client.stream_text`'s, so every script and table works
unchanged whichever transport carried the audio.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from demo.tts_client import OneShotResult, SentenceAudio, StreamResult


class TransportStreamError(RuntimeError):
    """The transport reported a failure (connection lost, stream error) mid-session."""


async def stream_with_transport(
    transport: Any,
    deltas: list[str],
    *,
    tokens_per_s: float | None = None,
    start: dict[str, Any] | None = None,
    timeout_s: float = 300.0,
) -> StreamResult:
    """One session over a `voice_agent.tts` transport: send deltas, close, collect the audio.

    Timings start once the session is open (as in stream_text, after the WebSocket connect),
    so connection set-up is not counted as time to first audio.
    """
    from voice_agent.tts.base import TtsAudio, TtsControl, TtsFailure

    opts = start or {}
    session = await transport.open_session(
        opts.get("voice"), opts.get("format", "pcm"), int(opts.get("sample_rate", 24000))
    )
    result = StreamResult()
    t0 = time.perf_counter()

    async def send_all() -> None:
        interval = 1.0 / tokens_per_s if tokens_per_s else 0.0
        for i, delta in enumerate(deltas):
            if interval:
                await asyncio.sleep(max(0.0, t0 + i * interval - time.perf_counter()))
            await session.send_text(delta)
        await session.close()

    async def receive_all() -> None:
        current: SentenceAudio | None = None
        async for event in session.events():
            now = time.perf_counter() - t0
            if isinstance(event, TtsFailure):
                raise TransportStreamError(f"{event.code}: {event.message}")
            if isinstance(event, TtsAudio):
                if current is None or current.index != event.index:
                    raise TransportStreamError(f"audio of sentence {event.index} out of order")
                if current.first_byte_s is None:
                    current.first_byte_s = now
                if result.first_audio_s is None:
                    result.first_audio_s = now
                current.audio.extend(event.data)
                current.frame_sizes.append(len(event.data))
                continue
            assert isinstance(event, TtsControl)
            msg = dict(event.message)
            msg["at_s"] = round(now, 4)
            result.controls.append(msg)
            if event.type == "sentence_start":
                current = SentenceAudio(
                    msg["index"], msg["text"], msg["format"], msg["sample_rate"]
                )
                result.sentences.append(current)
            elif event.type == "synthesis_complete" and current is not None:
                current.complete = msg
            elif event.type == "session_end":
                return

    try:
        await asyncio.wait_for(asyncio.gather(send_all(), receive_all()), timeout_s)
    finally:
        await session.aclose()
    result.total_s = time.perf_counter() - t0
    return result


def invoke_endpoint_once(
    endpoint_name: str, region: str | None, text: str, **options: Any
) -> OneShotResult:
    """The batch baseline on SageMaker: InvokeEndpoint (POST /invocations), body when all done."""
    import boto3

    client = boto3.client("sagemaker-runtime", region_name=region)
    body = json.dumps({"text": text, **options}).encode("utf-8")
    t0 = time.perf_counter()
    response = client.invoke_endpoint(
        EndpointName=endpoint_name, Body=body, ContentType="application/json"
    )
    stream = response["Body"]
    first = stream.read(1)
    first_s = time.perf_counter() - t0
    audio = first + stream.read()
    total = time.perf_counter() - t0
    headers = {
        k.lower(): v for k, v in response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).items()
    }
    return OneShotResult(audio, response.get("ContentType", ""), headers, first_s, total)

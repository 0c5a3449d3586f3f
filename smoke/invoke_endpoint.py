"""Check 1: one InvokeEndpoint (POST /invocations, JSON in, WAV out) through boto3."""

from __future__ import annotations

import io
import json
import time
import wave
from typing import Any

from smoke.diagnosis import Call, from_exception, no_audio
from smoke.result import CheckResult, elapsed_ms, failed

NAME = "invoke-endpoint"
TEXT = "This is the smoke check."
FIRST_CHUNK_BYTES = 4096


def invoke_call(endpoint_name: str) -> Call:
    return Call("InvokeEndpoint", "sagemaker:InvokeEndpoint", f"endpoint {endpoint_name}")


def request_body(voice: str | None) -> bytes:
    """The container's one-shot JSON body (docs/protocol.md): text, optional voice, WAV out."""
    body: dict[str, Any] = {"text": TEXT, "format": "wav"}
    if voice:
        body["voice"] = voice
    return json.dumps(body).encode()


def provider_of(custom_attributes: object) -> str | None:
    """The container answers with `X-Amzn-SageMaker-Custom-Attributes: provider=<name>,...`,
    which SageMaker passes back as the response's CustomAttributes."""
    if not isinstance(custom_attributes, str):
        return None
    for item in custom_attributes.split(","):
        key, _, value = item.strip().partition("=")
        if key == "provider" and value:
            return value
    return None


def wav_seconds(data: bytes) -> float | None:
    """Duration of a WAV file, or None when `data` is not one."""
    try:
        with wave.open(io.BytesIO(data)) as wav:
            return float(wav.getnframes()) / float(wav.getframerate())
    except (wave.Error, EOFError, ZeroDivisionError):
        return None


def run_invoke_check(
    sagemaker_runtime: Any, endpoint_name: str, voice: str | None, timeout_s: float
) -> CheckResult:
    call = invoke_call(endpoint_name)
    start = time.perf_counter()
    try:
        response = sagemaker_runtime.invoke_endpoint(
            EndpointName=endpoint_name,
            ContentType="application/json",
            Accept="audio/wav",
            Body=request_body(voice),
        )
        body = response["Body"]
        first = body.read(FIRST_CHUNK_BYTES)
        first_audio_ms = elapsed_ms(start) if first else None
        audio = first + body.read()
    except Exception as exc:
        return failed(NAME, from_exception(exc, call, timeout_s))
    total_ms = elapsed_ms(start)
    seconds = wav_seconds(audio)
    if not seconds:
        content_type = response.get("ContentType", "no content type")
        seen = f"HTTP 200 with {len(audio)} bytes of {content_type}"
        return failed(NAME, no_audio(call, seen))
    return CheckResult(
        NAME,
        first_audio_ms=first_audio_ms,
        total_ms=total_ms,
        detail=f"{seconds:.2f} s of WAV audio ({len(audio)} bytes)",
        provider=provider_of(response.get("CustomAttributes")),
    )

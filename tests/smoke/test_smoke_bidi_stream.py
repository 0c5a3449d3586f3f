"""Check 2 (one bidirectional session: two sentences, a cancel, close).

The session payloads run against the real Kokoro server through the agent's WebSocket
transport (the same `open_session` API). How the stream is *reached* runs through the real
`SageMakerBidiTts` and its HTTP/2 SDK, routed to loopback listeners with the SDK's own
AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2 variable.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from kokoro_stream import TtsFailure
from kokoro_stream.websocket import WebSocketTts

from smoke.bidi_stream import run_stream_check
from smoke.cli import sagemaker_transport
from smoke.diagnosis import Cause
from tests.support.listeners import SilentListener, audioless_tts_server, mute_tts_server
from tests.support.servers import ThreadedServer
from tests.support.smoke_results import diagnosed, passed_timings
from tests.support.smoke_world import ENDPOINT, REGION


@pytest.mark.model
async def test_two_sentences_and_a_cancel_with_the_real_model(server: ThreadedServer) -> None:
    result = await run_stream_check(WebSocketTts(server.ws), "local", None, 60)
    first_audio_ms, total_ms = passed_timings(result)
    assert 0 < first_audio_ms < total_ms
    assert result.detail.startswith("2 sentences, ")
    seconds = float(result.detail.split(", ")[1].split(" s of audio")[0])
    assert 1.0 < seconds < 15.0  # two sentences of real speech
    assert "cancel acknowledged (dropped 1)" in result.detail
    assert result.detail.endswith("session_end")
    assert server.active_sessions() == 0  # the check closed its session
    # The server's synthesis time over the audio it made: real speech on a CPU, so well
    # above a GPU's few hundredths and not absurd.
    assert result.real_time_factor is not None and 0.01 < result.real_time_factor < 20
    assert result.provider is None  # the stream carries no provider; the invoke check reads it


@pytest.mark.model
async def test_an_unknown_voice_is_the_containers_error(server: ThreadedServer) -> None:
    result = await run_stream_check(WebSocketTts(server.ws), "local", "xx_nobody", 60)
    diagnosis = diagnosed(result, Cause.MODEL_ERROR)
    assert "unknown_voice" in diagnosis.summary


@pytest.mark.parametrize(
    ("serve", "cause", "in_summary", "in_advice"),
    [
        pytest.param(
            mute_tts_server,
            Cause.NO_RESPONSE,
            "the stream opened but nothing came back within 1 s",
            "port 8443",
            id="opens-and-stays-silent-is-no-response",
        ),
        pytest.param(
            audioless_tts_server,
            Cause.NO_AUDIO,
            "(sentence_start)",
            "the synthesis side is silent",
            id="answers-without-audio-is-no-audio",
        ),
    ],
)
async def test_a_stream_that_sends_no_audio_is_diagnosed(
    serve: Callable[[], AbstractAsyncContextManager[str]],
    cause: Cause,
    in_summary: str,
    in_advice: str,
) -> None:
    async with serve() as url:
        result = await run_stream_check(WebSocketTts(url), ENDPOINT, None, 1.0)
    diagnosis = diagnosed(result, cause)
    assert in_summary in diagnosis.summary
    assert in_advice in diagnosis.advice


async def test_a_transport_failure_is_reported_with_its_cause() -> None:
    class Refused:
        """A transport whose stream fails at once the way the agent's transports report it."""

        async def open_session(self, options: Any) -> Any:
            return self

        async def send_text(self, text: str) -> None: ...
        async def flush(self) -> None: ...
        async def cancel(self) -> None: ...
        async def close(self) -> None: ...
        async def aclose(self) -> None: ...

        async def events(self) -> Any:
            yield TtsFailure(
                "tts_service_error",
                "SageMaker AccessDeniedException: User: arn:aws:sts::123456789012:assumed-"
                "role/Dev/alice is not authorized to perform: sagemaker:InvokeEndpointWith"
                "BidirectionalStream on resource: arn:aws:sagemaker:us-east-1:123456789012:"
                "endpoint/kokoro-voice-tts because no identity-based policy allows it",
            )

    result = await run_stream_check(Refused(), ENDPOINT, None, 5)  # type: ignore[arg-type]
    diagnosis = diagnosed(result, Cause.ACCESS_DENIED)
    assert "missing permission sagemaker:InvokeEndpointWithBidirectionalStream" in diagnosis.summary


# --- the real SageMaker transport (HTTP/2 SDK), as the CLI builds it -------------------------


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return int(sock.getsockname()[1])


async def test_the_real_transport_on_a_port_that_never_answers_is_no_response(
    aws_env: pytest.MonkeyPatch,
) -> None:
    """Routed anywhere else (the real AWS host), the same request would fail differently:
    unreachable without DNS here, or rejected credentials with it."""
    with SilentListener() as silent:
        aws_env.setenv(
            "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2", f"https://127.0.0.1:{silent.port}"
        )
        transport = sagemaker_transport(ENDPOINT, REGION)
        result = await run_stream_check(transport, ENDPOINT, None, 1.0)
    diagnosis = diagnosed(result, Cause.NO_RESPONSE)
    assert "nothing came back within 1 s: wrong port or no response" in diagnosis.summary
    assert "8443" in diagnosis.advice


async def test_the_real_transport_without_credentials_says_so(
    aws_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No keys, an empty HOME, no config files: botocore's chain (the transport's) finds
    nothing, and the transport says so before it sends anything."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        aws_env.delenv(name)
    aws_env.setenv("HOME", str(tmp_path))
    with SilentListener() as silent:
        aws_env.setenv(
            "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2", f"https://127.0.0.1:{silent.port}"
        )
        result = await run_stream_check(sagemaker_transport(ENDPOINT, REGION), ENDPOINT, None, 20)
    diagnosis = diagnosed(result, Cause.NO_CREDENTIALS)
    assert "AwsCredentialsError: no AWS credentials found" in diagnosis.summary
    assert silent.accepted == 0  # nothing unsigned left


async def test_the_real_transport_on_a_closed_port_is_unreachable_at_once(
    aws_env: pytest.MonkeyPatch,
) -> None:
    """The connection fails inside the SDK's own request task; the transport hands that
    failure to the check, which names it instead of waiting out its timeout."""
    aws_env.setenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME_HTTP2", f"https://127.0.0.1:{closed_port()}")
    started = time.monotonic()
    result = await run_stream_check(sagemaker_transport(ENDPOINT, REGION), ENDPOINT, None, 60)
    waited_s = time.monotonic() - started
    diagnosis = diagnosed(result, Cause.UNREACHABLE)
    assert "AWS_IO_SOCKET_CONNECTION_REFUSED" in diagnosis.summary
    assert waited_s < 30, waited_s  # not the check's 60 s timeout

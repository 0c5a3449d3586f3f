"""A TTS the agent cannot reach: the caller learns why, the agent's log alone learns where."""

from __future__ import annotations

import logging

import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.processes import free_port
from voice_agent.caller_errors import without_addresses
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.payload import Invocation
from voice_agent.pipeline import VoicePipeline

from .test_agent_pipeline import ANSWER, collect


async def test_unreachable_tts_names_no_address_to_the_caller(caplog) -> None:
    port = free_port()  # nothing listens there
    pipeline = VoicePipeline(
        ReplayedAnswerSource(ANSWER, 400), WebSocketTts(f"ws://127.0.0.1:{port}/nothing")
    )
    with caplog.at_level(logging.WARNING, logger="voice_agent"):
        events = await collect(pipeline, Invocation(prompt="hi"))
    (event,) = events
    assert event["code"] == "tts_unavailable"
    assert "127.0.0.1" not in event["message"] and str(port) not in event["message"]
    assert event["message"].startswith("cannot open a TTS session: ")
    assert any(str(port) in str(getattr(r, "fields", "")) for r in caplog.records)


@pytest.mark.parametrize(
    "text",
    [
        "OSError(\"Multiple exceptions: [Errno 111] Connect call failed ('127.0.0.1', 8080), "
        "[Errno 99] Cannot assign requested address ('::1', 8080, 0, 0)\")",
        "InvalidURI('ws://kokoro.internal:8080/x is not a valid URI')",
        "ConnectionRefusedError('kokoro.internal:8080 refused')",
        "OSError('connect to [fd00::7]:8080 failed')",
    ],
)
def test_addresses_are_hidden(text: str) -> None:
    hidden = without_addresses(text)
    assert "8080" not in hidden and "<tts address>" in hidden


def test_causes_and_arns_are_kept() -> None:
    text = (
        "SageMaker AccessDeniedException: not authorized on resource: "
        "arn:aws:sagemaker:us-east-1:123456789012:endpoint/kokoro; TimeoutError()"
    )
    assert without_addresses(text) == text

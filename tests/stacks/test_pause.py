"""Pause (-c voice_paused=true): everything but the billing endpoint stays deployed."""

from __future__ import annotations

import pytest

from tests.support.cdk_synth import AGENT, TTS, Synthesized

pytestmark = pytest.mark.synth


def _types(synth: Synthesized, stack: str) -> set[str]:
    return {r["Type"] for r in synth.templates[stack]["Resources"].values()}


def test_paused_deploys_no_endpoint_and_keeps_the_rest(
    paused: Synthesized, deployed: Synthesized
) -> None:
    if deployed.region != "us-east-1":
        return  # one comparison is enough; the paused app is synthesized for us-east-1
    running, stopped = _types(deployed, TTS), _types(paused, TTS)
    gone = running - stopped
    assert gone == {
        "AWS::SageMaker::Endpoint",
        "AWS::ApplicationAutoScaling::ScalableTarget",
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        "AWS::CloudWatch::Alarm",
    }
    # Image, weights, model and endpoint config (free), role, log group retention stay.
    for kept in (
        "AWS::SageMaker::Model",
        "AWS::SageMaker::EndpointConfig",
        "Custom::KokoroWeights",
        "AWS::S3::Bucket",
        "Custom::LogRetention",
    ):
        assert kept in stopped
    assert paused.templates[TTS]["Outputs"]["VoicePaused"]["Value"] == "true"
    assert paused.templates[TTS]["Outputs"]["EndpointName"]["Value"] == "kokoro-voice-tts"
    # The agent and its configuration stay; it is told the voice is paused.
    assert _types(paused, AGENT) == _types(deployed, AGENT)
    (runtime,) = paused.resources(AGENT, "AWS::BedrockAgentCore::Runtime").values()
    assert runtime["Properties"]["EnvironmentVariables"]["TTS_PAUSED"] == "true"
    (running_runtime,) = deployed.resources(AGENT, "AWS::BedrockAgentCore::Runtime").values()
    assert running_runtime["Properties"]["EnvironmentVariables"]["TTS_PAUSED"] == "false"

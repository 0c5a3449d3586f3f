"""The caller CLI end to end against the agent app (FakeTtsServer behind it): single runs
over SSE and /ws saved as WAV, the stream vs batch comparison table, and conversations with an
interrupt over both."""

from __future__ import annotations

import asyncio
import io
import os
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import boto3
import pytest
from bedrock_agentcore.runtime.models import SESSION_HEADER
from botocore.exceptions import ClientError
from kokoro_stream.websocket import WebSocketTts

from devkit import agent_client, caller
from devkit.agent_client import InvocationResult
from devkit.loopback import serve
from devkit.wav import wav_bytes
from tests.support.aws_doubles import BotocoreRecorder, sigv4_credential
from tests.support.fake_tts import FakeTtsServer
from tests.support.recording_script import RecordingScript
from voice_agent.app import create_app
from voice_agent.conversation import Turn
from voice_agent.events import done_event, to_sse
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings

pytestmark = pytest.mark.slow  # whole conversations through the caller CLI

ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"


@pytest.mark.parametrize("transport", [[], ["--ws"]])
async def test_single_run_saves_a_wav_and_prints_metrics(
    transport: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answer.wav"
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 300), WebSocketTts(tts.url))
        async with serve(app) as base:
            argv = ["--url", base, "--out", str(out), *transport]
            code = await asyncio.to_thread(caller.main, argv)
    assert code == 0
    printed = capsys.readouterr().out
    assert "text_source=ReplayedAnswerSource" in printed and "first audio" in printed
    with wave.open(str(out)) as wav:
        assert wav.getframerate() == 24000 and wav.getsampwidth() == 2
        assert wav.getnframes() * 2 == tts.sessions[0].audio_bytes


async def test_compare_prints_a_table_for_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 100), WebSocketTts(tts.url))
        async with serve(app) as base:
            code = await asyncio.to_thread(caller.main, ["--url", base, "--compare", "--runs", "2"])
    assert code == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert any(line.startswith("stream") and " 2 " in line for line in lines)
    assert any(line.startswith("batch") and " 2 " in line for line in lines)
    assert "first audio: stream is" in printed
    assert len(tts.sessions) == 4


def test_cli_rejects_bad_arguments() -> None:
    with pytest.raises(SystemExit):
        caller.parse_args(["--runs", "0"])
    with pytest.raises(SystemExit):
        caller.parse_args(["--mode", "fast"])


def test_wav_sentences_are_joined_into_one_wav(tmp_path: Path) -> None:
    result = InvocationResult(mode="stream")
    for index, frames in enumerate([b"\x01\x00" * 10, b"\x02\x00" * 5]):
        header = {"type": "audio", "index": index, "format": "wav", "sample_rate": 24000}
        result.add(header, wav_bytes(frames, 24000))
    out = tmp_path / "joined.wav"
    result.write_wav(out)
    with wave.open(str(out)) as wav:
        assert wav.readframes(wav.getnframes()) == b"\x01\x00" * 10 + b"\x02\x00" * 5


@pytest.mark.parametrize(("fmt", "codec"), [("ulaw", "pcm_mulaw"), ("alaw", "pcm_alaw")])
def test_g711_answers_are_saved_as_wavs_that_two_readers_play(
    tmp_path: Path, fmt: str, codec: str
) -> None:
    import av
    import soundfile as sf

    data = bytes(range(255))  # every code but one, and an odd length (a padded data chunk)
    result = InvocationResult(mode="stream")
    result.add({"type": "audio", "index": 0, "format": fmt, "sample_rate": 8000}, data)
    out = tmp_path / "answer.wav"
    result.write_wav(out)
    raw, _ = sf.read(
        io.BytesIO(data), format="RAW", subtype=fmt.upper(), samplerate=8000, channels=1
    )
    from_wav, rate = sf.read(str(out))
    assert rate == 8000 and list(from_wav) == list(raw)
    with av.open(str(out)) as container:
        stream = container.streams.audio[0]
        assert (stream.codec_context.name, stream.codec_context.sample_rate) == (codec, 8000)
        assert sum(frame.samples for frame in container.decode(stream)) == len(data)


LONG = "Hi. " + "More words keep coming. " * 40
SECOND = "Sure. I changed it."


@pytest.mark.parametrize("transport", [["--ws"], []])
async def test_a_two_turn_conversation_with_an_interrupt(
    transport: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # FakeTtsServer: 20 frames of 960 bytes = 400 ms of audio per sentence, sent far faster
    # than real time, its words spread evenly; playback stops at 500 ms, inside the second
    # sentence ("More" ends at 480 ms, "words" at 580 ms).
    source = RecordingScript([LONG, SECOND], tokens_per_s=200)
    async with FakeTtsServer(frames_per_sentence=20) as tts:
        app = create_app(AgentSettings(), source, WebSocketTts(tts.url))
        async with serve(app) as base:
            argv = [
                *("--url", base, "--out", str(tmp_path / "turn.wav"), *transport),
                *("--interrupt-after-ms", "500", "--prompt", "Tell me.", "--prompt", "And?"),
            ]
            code = await asyncio.to_thread(caller.main, argv)
    printed = capsys.readouterr().out
    assert code == 0, printed
    kept = '; the agent remembers "Hi. More"' if transport else " (sent with the next request)"
    assert f"  -- interrupted at 500 ms{kept}\n" in printed
    assert "you> Tell me.\n" in printed and "you> And?\n" in printed
    assert f"agent> {SECOND}\n" in printed and "history 1 turns" in printed
    assert source.prompts[1][1].turns == (Turn("Tell me.", "Hi. More", interrupted=True),)
    # The first answer stopped early: of its many sentences, at most the ones in flight.
    assert "cancel" in tts.sessions[0].types()
    assert (tmp_path / "turn_1.wav").exists() and (tmp_path / "turn_2.wav").exists()


async def test_turns_without_playback_keep_one_conversation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = RecordingScript([ANSWER, SECOND])
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), source, WebSocketTts(tts.url))
        async with serve(app) as base:
            argv = ["--url", base, "--out", "", "--prompt", "one", "--prompt", "two"]
            code = await asyncio.to_thread(caller.main, argv)
    assert code == 0
    assert [h.number for _, h in source.prompts] == [0, 1]
    assert "history 1 turns" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--captions", "--runtime-arn", "arn"], "play a local agent's answers"),
        (["--interrupt-after-ms", "5", "--compare"], "play a local agent's answers"),
        (["--captions", "--format", "wav"], "need --format pcm"),
        (["--interrupt-after-ms", "-1"], "--interrupt-after-ms must be >= 0"),
        (["--compare", "--prompt", "a", "--prompt", "b"], "--compare takes one --prompt"),
    ],
)
def test_conversation_flags_are_checked(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        caller.parse_args(argv)
    assert needle in capsys.readouterr().err


RUNTIME_ARN = "arn:aws:bedrock-agentcore:eu-west-1:123456789012:runtime/voice_agent-abc123"


@pytest.mark.parametrize(
    ("env", "flag", "expected"),
    [
        ({"AWS_REGION": "eu-west-1"}, None, "eu-west-1"),  # botocore alone would not see it
        ({"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-east-1"}, None, "eu-west-1"),
        ({"AWS_DEFAULT_REGION": "us-east-1"}, None, "us-east-1"),
        ({"AWS_REGION": "eu-west-1"}, "ap-northeast-1", "ap-northeast-1"),  # --region wins
    ],
)
def test_runtime_invocation_region_precedence(
    env: dict[str, str],
    flag: str | None,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The real boto3 client `invoke_runtime` builds, observed through botocore's before-send
    hook (registered on boto3's default session, which the client inherits)."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in {
        **env,
        "AWS_ACCESS_KEY_ID": "AKIACLI",
        "AWS_SECRET_ACCESS_KEY": "s",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    boto3.setup_default_session()
    recorder = BotocoreRecorder()
    boto3.DEFAULT_SESSION.events.register(
        "before-send.bedrock-agentcore.InvokeAgentRuntime", recorder
    )
    with pytest.raises(ClientError, match="AccessDenied"):
        agent_client.invoke_runtime(RUNTIME_ARN, {"prompt": "hi", "mode": "stream"}, region=flag)
    [sent] = recorder.sent
    assert urlparse(sent.url).hostname == f"bedrock-agentcore.{expected}.amazonaws.com"
    credential = sigv4_credential(sent.headers["authorization"])
    assert (credential.region, credential.service) == (expected, "bedrock-agentcore")


async def test_captions_follow_the_playback(capsys: pytest.CaptureFixture[str]) -> None:
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 300), WebSocketTts(tts.url))
        async with serve(app) as base:
            argv = ["--url", base, "--out", "", "--ws", "--captions"]
            code = await asyncio.to_thread(caller.main, argv)
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    # FakeTtsServer's sentences last 60 ms each: one caption line per sentence, on its offset.
    assert lines[1:4] == [
        "  [  0.00 s] Your order shipped today.",
        "  [  0.06 s] It arrives on Thursday.",
        "  [  0.12 s] Anything else?",
    ]


class RuntimeAnswers:
    """Test double of a deployed AgentCore runtime (AWS is not reachable): a botocore
    `before-send` handler that records each InvokeAgentRuntime request the real boto3 client
    signed and answers with a short SSE stream."""

    def __init__(self) -> None:
        self.sent: list[dict[str, str]] = []

    def __call__(self, request: Any, **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        self.sent.append({k.lower(): str(v) for k, v in request.headers.items()})
        sse = to_sse(done_event({"audio_seconds": 0.0, "history_turns": len(self.sent) - 1}))
        return AWSResponse(request.url, 200, {"Content-Type": "text/event-stream"}, _Raw(sse))


class _Raw(io.BytesIO):
    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.read()


def test_a_conversation_with_a_deployed_runtime_keeps_one_runtime_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIACLI")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    boto3.setup_default_session()
    runtime = RuntimeAnswers()
    boto3.DEFAULT_SESSION.events.register(
        "before-send.bedrock-agentcore.InvokeAgentRuntime", runtime
    )
    argv = ["--runtime-arn", RUNTIME_ARN, "--region", "eu-west-1", "--out", ""]
    assert caller.main([*argv, "--prompt", "one", "--prompt", "two"]) == 0
    # botocore puts runtimeSessionId in the header the agent's SDK keys conversations by.
    model = boto3.client("bedrock-agentcore", region_name="eu-west-1").meta.service_model
    member = model.operation_model("InvokeAgentRuntime").input_shape.members["runtimeSessionId"]
    assert member.serialization["name"] == SESSION_HEADER
    sessions = [headers[SESSION_HEADER.lower()] for headers in runtime.sent]
    assert len(sessions) == 2 and sessions[0] == sessions[1] and len(sessions[0]) >= 33
    printed = capsys.readouterr().out
    assert "you> one" in printed and "you> two" in printed

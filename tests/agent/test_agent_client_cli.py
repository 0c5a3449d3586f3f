"""The caller CLI end to end against the agent app (FakeTtsServer behind it): single runs
over SSE and /ws saved as WAV, and the stream vs batch comparison table."""

from __future__ import annotations

import asyncio
import io
import wave
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.agent.fake_tts import FakeTtsServer
from tests.agent.loopback import serve_app
from voice_agent import client
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.tts.websocket import WebSocketTts

ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"


@pytest.mark.parametrize("transport", [[], ["--ws"]])
async def test_single_run_saves_a_wav_and_prints_metrics(
    transport: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answer.wav"
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 300), WebSocketTts(tts.url))
        async with serve_app(app) as base:
            argv = ["--url", base, "--out", str(out), *transport]
            code = await asyncio.to_thread(client.main, argv)
    assert code == 0
    printed = capsys.readouterr().out
    assert "text_source=ReplayedAnswerSource" in printed and "first audio" in printed
    with wave.open(str(out)) as wav:
        assert wav.getframerate() == 24000 and wav.getsampwidth() == 2
        assert wav.getnframes() * 2 == tts.sessions[0].audio_bytes


async def test_compare_prints_a_table_for_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    async with FakeTtsServer() as tts:
        app = create_app(AgentSettings(), ReplayedAnswerSource(ANSWER, 100), WebSocketTts(tts.url))
        async with serve_app(app) as base:
            code = await asyncio.to_thread(client.main, ["--url", base, "--compare", "--runs", "2"])
    assert code == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert any(line.startswith("stream") and " 2 " in line for line in lines)
    assert any(line.startswith("batch") and " 2 " in line for line in lines)
    assert "first audio: stream is" in printed
    assert len(tts.sessions) == 4


def test_cli_rejects_bad_arguments() -> None:
    with pytest.raises(SystemExit):
        client.parse_args(["--runs", "0"])
    with pytest.raises(SystemExit):
        client.parse_args(["--mode", "fast"])


def test_wav_sentences_are_joined_into_one_wav(tmp_path: Path) -> None:
    def sentence_wav(frames: bytes) -> bytes:
        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(24000)
            w.writeframes(frames)
        return buf.getvalue()

    result = client.InvocationResult(mode="stream")
    for index, frames in enumerate([b"\x01\x00" * 10, b"\x02\x00" * 5]):
        header = {"type": "audio", "index": index, "format": "wav", "sample_rate": 24000}
        result.add(header, sentence_wav(frames))
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
    result = client.InvocationResult(mode="stream")
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
    import os

    import boto3
    from botocore.exceptions import ClientError

    from tests.agent.aws_doubles import BotocoreRecorder, sigv4_credential

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
        client.invoke_runtime(RUNTIME_ARN, {"prompt": "hi", "mode": "stream"}, region=flag)
    [sent] = recorder.sent
    assert urlparse(sent.url).hostname == f"bedrock-agentcore.{expected}.amazonaws.com"
    credential = sigv4_credential(sent.headers["authorization"])
    assert (credential.region, credential.service) == (expected, "bedrock-agentcore")

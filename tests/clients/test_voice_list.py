"""`TtsTransport.list_voices()` on both transports: the WebSocket one reads the real server's
GET /voices; the SageMaker one sends `{"list": "voices"}` through botocore's InvokeEndpoint,
here to SageMaker's loopback front door in front of the same real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kokoro_stream import VoiceInfo, VoiceList, VoiceListError
from kokoro_stream.sagemaker import SageMakerBidiTts
from kokoro_stream.websocket import WebSocketTts, voices_url

from devkit.loopback import AppServer
from tests.support.aws_doubles import fake_aws_env
from tests.support.aws_front import AwsFront
from tests.support.servers import ThreadedServer

LISTED = {
    "voices": [
        {"name": "jf_alpha", "language": "ja", "gender": "female", "user_file": False},
        {"name": "xx_mine", "language": None, "gender": None, "user_file": True},
    ],
    "default": "jf_alpha",
    "max_blend": 4,
    "blend_syntax": "name:weight+name:weight",
}


def test_a_voice_list_reads_the_servers_json_and_writes_it_back() -> None:
    listed = VoiceList.from_json(LISTED)
    assert listed.voices == (
        VoiceInfo("jf_alpha", "ja", "female", False),
        VoiceInfo("xx_mine", None, None, True),
    )
    assert (listed.default, listed.max_blend) == ("jf_alpha", 4)
    assert listed.as_dict() == LISTED


@pytest.mark.parametrize(
    "body",
    [
        {"error": {"code": "not_ready"}},
        {**LISTED, "voices": [{"language": "ja"}]},
        {**LISTED, "default": None},
        {**LISTED, "max_blend": True},
        [LISTED],
    ],
)
def test_anything_else_is_not_a_voice_list(body: Any) -> None:
    with pytest.raises(VoiceListError):
        VoiceList.from_json(body)


def test_the_voices_route_is_on_the_websockets_host_and_port() -> None:
    assert voices_url("ws://10.0.0.5:8080/invocations-bidirectional-stream") == (
        "http://10.0.0.5:8080/voices"
    )
    assert voices_url("wss://tts.example.com/x") == "https://tts.example.com/voices"


@pytest.mark.model
async def test_the_websocket_transport_lists_the_real_servers_voices(
    server: ThreadedServer,
) -> None:
    listed = await WebSocketTts(server.ws).list_voices()
    assert listed.as_dict() == server.voices()
    assert "jf_alpha" in listed.names()


@pytest.fixture
def sagemaker_front(
    server: ThreadedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[AwsFront]:
    front = AwsFront(kokoro_url=server.http, agent_url=None)
    with AppServer(front.app) as running:
        monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME", running.http)
        fake_aws_env(monkeypatch, tmp_path)
        yield front


@pytest.mark.model
async def test_the_sagemaker_transport_lists_them_through_invoke_endpoint(
    server: ThreadedServer, sagemaker_front: AwsFront
) -> None:
    tts = SageMakerBidiTts("kokoro-tts", region="us-east-1")
    listed = await tts.list_voices()
    await tts.aclose()
    assert listed.as_dict() == server.voices()
    (request,) = sagemaker_front.requests
    assert request.raw_path == "/endpoints/kokoro-tts/invocations"
    assert request.body == b'{"list": "voices"}'

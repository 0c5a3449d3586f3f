"""Contract tests for `TTS.sagemaker`: the plugin built as its users build it, on the REAL
SageMaker HTTP/2 client; only the HTTP transport under that client records instead of
reaching AWS (tests/support/sagemaker_contract.py). What it sends is checked against the
SDK's endpoint rules, its HTTP binding and SigV4; AWS's refusal reaches LiveKit as an error.
(The recording transport that answers only when the request stream ends is not used: the
plugin keeps its stream open until the server has answered what it flushed.)
"""

from __future__ import annotations

import asyncio

import pytest
from livekit.agents import APIConnectOptions, APIError, tts
from livekit.plugins import kokoro_sagemaker

from tests.support import sagemaker_contract as contract
from tests.support.sagemaker_contract import ENDPOINT, REGION

# LiveKit Agents takes 2-4 s to import in each worker: kept out of the edit loop.
pytestmark = pytest.mark.slow

NO_RETRY = APIConnectOptions(max_retry=0, timeout=10.0)


async def drain(stream: tts.SynthesizeStream) -> None:
    async for _ in stream:
        pass


@pytest.mark.usefixtures("env_keys")
async def test_a_stream_is_signed_for_the_endpoint_and_a_refusal_is_a_livekit_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transport = contract.DenyAtOnce()  # AccessDenied, as AWS answers a role without the permission
    contract.record_http(monkeypatch, transport)
    plugin = kokoro_sagemaker.TTS.sagemaker(ENDPOINT, region=REGION)
    stream = plugin.stream(conn_options=NO_RETRY)
    stream.push_text("Hello there.")
    stream.end_input()
    with pytest.raises(APIError, match="AccessDenied"):
        await asyncio.wait_for(drain(stream), 30)
    await plugin.aclose()

    [request] = transport.requests
    await asyncio.wait_for(request.body_done.wait(), 5)
    # Every event sent before the refusal landed (the start at least) is signed in the chain.
    keys = contract.ENV_KEYS
    assert contract.checked_stream(request, endpoint=ENDPOINT, region=REGION, keys=keys) >= 1
    assert plugin.description == f"SageMaker endpoint {ENDPOINT} ({REGION})"  # errors name it


@pytest.mark.usefixtures("bare_aws_env")
def test_the_region_comes_from_aws_region_when_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-northeast-1")
    plugin = kokoro_sagemaker.TTS.sagemaker(ENDPOINT)
    assert plugin.description == f"SageMaker endpoint {ENDPOINT} (ap-northeast-1)"

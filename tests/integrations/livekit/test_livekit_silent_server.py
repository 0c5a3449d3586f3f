"""A server that goes silent: the LiveKit plugin ends the stream with APITimeoutError when the
server owes an answer (after a `flush` or `close`) and sends nothing for
`conn_options.timeout`, and waits as long as it takes while the text is still coming.

The server is tests/support/fake_tts.py's FakeTtsServer (a double of the Kokoro server on a
real loopback socket): the real server cannot be made to stall on cue.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from livekit.agents import APIConnectOptions, APITimeoutError
from livekit.plugins import kokoro_sagemaker

from tests.support.fake_tts import FakeTtsServer

# LiveKit Agents takes 2-4 s to import in each worker: kept out of the edit loop.
pytestmark = pytest.mark.slow

LIMIT = APIConnectOptions(max_retry=0, timeout=0.5)


async def test_a_stream_whose_server_stalls_after_close_times_out_naming_it() -> None:
    async with FakeTtsServer(fault="stall", fault_after_frames=1) as fake:
        tts = kokoro_sagemaker.TTS.websocket(fake.url)
        stream = tts.stream(conn_options=LIMIT)
        stream.push_text("Hello there. This one never ends.")
        stream.end_input()
        began = time.perf_counter()
        with pytest.raises(APITimeoutError, match=r"no answer for 0.5 s"):
            async with asyncio.timeout(10):  # the bound of the test, not the plugin's
                _ = [e async for e in stream]
        waited = time.perf_counter() - began
        await tts.aclose()
    assert 0.5 <= waited < 5.0
    # The stream had audio before the stall, and the server was told to stop.
    assert fake.sessions[0].frames == 1
    assert "cancel" in fake.sessions[0].types()


async def test_synthesize_on_a_server_that_stalls_times_out() -> None:
    async with FakeTtsServer(fault="stall", fault_after_frames=0) as fake:
        tts = kokoro_sagemaker.TTS.websocket(fake.url)
        with pytest.raises(APITimeoutError, match=fake.url.removeprefix("ws://")):
            async with asyncio.timeout(10):
                await tts.synthesize("Hello.", conn_options=LIMIT).collect()
        await tts.aclose()


async def test_a_quiet_server_while_the_llm_still_writes_is_not_a_timeout() -> None:
    async with FakeTtsServer() as fake:
        tts = kokoro_sagemaker.TTS.websocket(fake.url)
        stream = tts.stream(conn_options=LIMIT)
        stream.push_text("First part.")
        stream.flush()
        await asyncio.sleep(3 * LIMIT.timeout)  # the LLM thinks; the server has nothing to say
        stream.push_text(" Second part.")
        stream.end_input()
        async with asyncio.timeout(10):
            events = [e async for e in stream]
        await tts.aclose()
    assert events and events[-1].is_final
    assert fake.sessions[0].types()[-1] == "close"

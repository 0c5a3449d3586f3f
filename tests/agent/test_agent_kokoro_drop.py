"""The real Kokoro server goes away mid-answer: the agent reports it to the caller at once.

The real Kokoro-82M model behind the real container app (ThreadedServer, fixtures from
tests/conftest.py), the agent on uvicorn with the ReplayedAnswerSource. When the caller has
its first audio, that TTS server is stopped (uvicorn shutdown: close 1012 on the open
WebSocket) or its connections are aborted (TCP gone, as in a crash). The caller's SSE stream
must end with a fatal `tts_disconnected` error within a couple of seconds.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from devkit.loopback import serve
from devkit.sse import SSEParser
from tests.support.servers import make_agent

BOUND_S = 2.0


def abort_connections(srv) -> None:
    """Drop every TCP connection of the server without a close frame (like a crash)."""

    def abort() -> int:
        connections = list(srv.server.server_state.connections)
        for protocol in connections:
            protocol.transport.abort()
        return len(connections)

    assert srv.call(abort) >= 1


@pytest.mark.model
@pytest.mark.parametrize("how", ["stop", "abort"])
async def test_real_tts_server_gone_mid_answer_is_an_error_event(make_server, how) -> None:
    srv = make_server()
    events: list[dict] = []
    async with (
        serve(make_agent(srv.ws, rate=200, tts_idle_timeout_s=30)) as base,
        httpx.AsyncClient(timeout=60) as client,
        client.stream("POST", base + "/invocations", json={"prompt": "hi"}) as response,
    ):
        parser, killed_at = SSEParser(), None
        async with asyncio.timeout(60):
            async for chunk in response.aiter_bytes():
                for data in parser.feed(chunk):
                    events.append(json.loads(data))
                    if events[-1]["type"] == "audio" and killed_at is None:
                        killed_at = time.perf_counter()
                        if how == "stop":
                            asyncio.get_running_loop().run_in_executor(None, srv.stop)
                        else:
                            abort_connections(srv)
        ended = time.perf_counter()
    kinds = [e["type"] for e in events]
    assert killed_at is not None and "done" not in kinds, kinds
    assert kinds[-1] == "error", kinds
    assert events[-1]["code"] == "tts_disconnected" and events[-1]["fatal"], events[-1]
    delay = ended - killed_at
    print(f"\nreal Kokoro server {how}: error event {delay * 1000:.0f} ms after the kill")
    assert delay < BOUND_S

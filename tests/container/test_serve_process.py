"""The real `serve` entrypoint as a separate process: health and /ping latency under load."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from websockets.asyncio.client import connect

from devkit.local_stack import tts_server as running_server
from devkit.tts_client import ws_url
from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.servers import ThreadedServer

pytestmark = pytest.mark.model

LONG_TEXT = " ".join(
    "This long sentence keeps the model busy while the health check keeps answering."
    for _ in range(3)
)


async def test_ping_answers_fast_while_synthesis_runs():
    with running_server(env={"KOKORO_INTRA_OP_THREADS": "2"}) as base_url:
        async with httpx.AsyncClient(base_url=base_url) as client, connect(ws_url(base_url)) as ws:
            await ws.send(json.dumps({"text": LONG_TEXT}))
            # Wait until synthesis is certainly running: the first sentence takes seconds.
            await asyncio.sleep(0.5)
            latencies = []
            for _ in range(20):
                started = time.perf_counter()
                response = await client.get("/ping", timeout=5)
                latencies.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200
                await asyncio.sleep(0.1)
            # Audio still flowing afterwards proves the pings overlapped synthesis.
            frame = await asyncio.wait_for(ws.recv(), 60)
    assert frame is not None
    assert max(latencies) < 250, f"/ping took up to {max(latencies):.0f} ms"


def test_ping_is_503_until_loaded_and_reports_a_failed_load(tmp_path):
    # An empty weights directory: loading fails, and /ping must never claim health.
    settings = Settings(host="127.0.0.1", model_dir=str(tmp_path))
    server = ThreadedServer(settings, SynthesisService(settings)).start()
    try:
        deadline = time.monotonic() + 10
        body = {}
        while time.monotonic() < deadline:
            response = httpx.get(f"{server.http}/ping", timeout=2)
            assert response.status_code == 503
            body = response.json()
            if body["status"] == "failed":
                break
            time.sleep(0.05)
        assert body["status"] == "failed"
        assert "config.json" in body["error"]
    finally:
        server.stop()

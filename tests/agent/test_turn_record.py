"""The `turn end` record: one JSON line per answered turn (agent/voice_agent/turn_log.py).

The real agent app on loopback with FakeTtsServer (test double for the TTS server), and the
real `python -m voice_agent` process, whose stdout (what AgentCore ships to CloudWatch Logs)
must be JSON lines only, the turn record among them. The CDK app's metric filters are run
over these lines in tests/stacks/test_log_metrics.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.agent_client import invoke_http, invoke_ws
from devkit.loopback import serve
from devkit.processes import free_port
from tests.support.fake_tts import FakeTtsServer
from tests.support.json_logs import json_lines
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.turn_log import JsonLineFormatter

ANSWER = "Your order shipped today. It arrives on Thursday. Anything else?"
LONG = "Hi. " + "More words keep coming. " * 40  # seconds of text after the first sentence
REPO = Path(__file__).resolve().parents[2]


def make_app(tts_url: str, answer: str = ANSWER, rate: float = 200.0) -> Any:
    return create_app(
        AgentSettings(), ReplayedAnswerSource(answer, tokens_per_s=rate), WebSocketTts(tts_url)
    )


class TurnLines:
    """The `voice_agent.turn` logger's records, as the JSON lines the formatter writes."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stream.getvalue().splitlines()]


@contextmanager
def turn_lines() -> Iterator[TurnLines]:
    with json_lines("voice_agent.turn", JsonLineFormatter()) as stream:
        yield TurnLines(stream)


def _check_shape(record: dict[str, Any]) -> None:
    assert record["logger"] == "voice_agent.turn" and record["msg"] == "turn end"
    assert record["level"] == "info" and isinstance(record["ts"], float)
    keys = {"first_text_ms", "first_sound_ms", "interrupted", "sentences", "error", "mode"}
    assert keys <= set(record)


async def test_a_complete_answer_leaves_one_record_with_its_timings() -> None:
    with turn_lines() as lines:
        async with FakeTtsServer() as tts, serve(make_app(tts.url)) as base:
            stream = await invoke_http(base, {"prompt": "where is my order?"})
            batch = await invoke_http(base, {"prompt": "again", "mode": "batch"})
    first, second = lines.records()
    for record, answer, mode in ((first, stream, "stream"), (second, batch, "batch")):
        _check_shape(record)
        assert (record["mode"], record["interrupted"], record["error"]) == (mode, False, None)
        assert record["sentences"] == len(answer.audio) == 3
        # The turn's clock starts before the pipeline's and stops when an event went out,
        # after the pipeline saw it: never earlier than the `done` metrics say.
        assert 0 < record["first_text_ms"] <= record["first_sound_ms"]
        assert record["first_sound_ms"] >= answer.metrics["time_to_first_audio_ms"]


async def test_an_interrupted_answer_is_recorded_as_interrupted() -> None:
    with turn_lines() as lines:
        async with (
            FakeTtsServer(synth_delay_s=0.05) as tts,
            serve(make_app(tts.url, LONG, rate=100.0)) as base,
            connect(base.replace("http", "ws") + "/ws") as ws,
        ):
            await ws.send(json.dumps({"prompt": "Tell me everything."}))
            while True:
                frame = await ws.recv()
                if isinstance(frame, bytes):  # audio went out: interrupt now
                    break
            await ws.send(json.dumps({"type": "interrupt", "played_ms": 10}))
            while True:
                frame = await ws.recv()
                if isinstance(frame, str) and json.loads(frame)["type"] == "interrupted":
                    break
    (record,) = lines.records()
    _check_shape(record)
    assert (record["interrupted"], record["error"]) == (True, None)
    assert record["first_sound_ms"] is not None and record["sentences"] >= 1


async def test_a_fatal_tts_error_is_the_records_error() -> None:
    with turn_lines() as lines:
        async with (
            FakeTtsServer(fatal_on_text=" It") as tts,  # a delta of the second sentence
            serve(make_app(tts.url)) as base,
        ):
            answer = await invoke_ws(base.replace("http", "ws") + "/ws", {"prompt": "when?"})
    (record,) = lines.records()
    _check_shape(record)
    assert answer.errors and answer.errors[-1]["fatal"]
    assert record["error"] == answer.errors[-1]["code"]
    assert record["interrupted"] is False


async def _healthy(base: str, proc: asyncio.subprocess.Process) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(300):  # up to 60 s for the process to import and start serving
            assert proc.returncode is None, "the agent process exited before it served"
            with contextlib.suppress(httpx.TransportError):
                if (await client.get(f"{base}/ping", timeout=1)).status_code == 200:
                    return
            await asyncio.sleep(0.2)
    raise AssertionError("the agent process never answered /ping")


async def _invoke_process(tts_url: str, log_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TTS_"))}
    env.update(
        HOST="127.0.0.1",
        PORT=str(port),
        TTS_URL=tts_url,
        AGENT_TEXT_SOURCE="replay",
        AGENT_REPLAY_TEXT=ANSWER,
        AGENT_REPLAY_TOKENS_PER_S="500",
    )
    with log_path.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "voice_agent", env=env, cwd=REPO, stdout=out, stderr=out
        )
        try:
            base = f"http://127.0.0.1:{port}"
            await _healthy(base, proc)
            answer = await invoke_http(base, {"prompt": "where is my order?"})
            assert answer.order[-1] == "done"
        finally:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 20)


async def test_the_agent_process_writes_only_json_lines(tmp_path: Path) -> None:
    log_path = tmp_path / "agent.log"
    async with FakeTtsServer() as tts:
        await _invoke_process(tts.url, log_path)
    lines = log_path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # a line that is not JSON fails here
    loggers = {r["logger"] for r in records}
    assert {"uvicorn.error", "uvicorn.access", "voice_agent.turn"} <= loggers, loggers
    (turn,) = [r for r in records if r["msg"] == "turn end"]
    assert (turn["interrupted"], turn["sentences"], turn["mode"]) == (False, 3, "stream")
    assert turn["request_id"]  # AgentCore's request id, as its SDK's own lines carried it

"""The metric filters of both stacks, run over real log lines.

The JSON filter patterns are read from the synthesized templates and evaluated with
tests/support/log_filters.py (checked here against the examples of CloudWatch's "Filter
pattern syntax" page) on the JSON lines of the real Kokoro server (on loopback, with the
tone test double instead of the model, its records formatted by the server's own
JsonFormatter) and of the real agent app (on loopback, with the FakeTtsServer test double).
Each filter must select exactly the records it is named for and publish their values.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from kokoro_stream.websocket import WebSocketTts
from websockets.asyncio.client import connect

from devkit.agent_client import invoke_http
from devkit.loopback import serve
from devkit.text import PARAGRAPH
from devkit.tone import ToneEngine, ToneSynthesisService
from kokoro_server.config import Settings
from kokoro_server.logs import JsonFormatter
from stacks.log_metrics import AGENT_METRICS, SERVER_METRICS
from tests.support.cdk_synth import AGENT, REPO_ROOT, TTS, Synthesized
from tests.support.fake_tts import FakeTtsServer
from tests.support.gated_tone import HOLD_S, VERY_LONG, gated_service, open_session
from tests.support.json_logs import json_lines
from tests.support.log_filters import compile_pattern, matches, metric_value
from tests.support.servers import ThreadedServer
from tests.support.stalled_client import STALLING_SENTENCE, non_reader
from tests.support.ws_frames import is_type, read_until, send
from voice_agent.app import create_app
from voice_agent.llm import ReplayedAnswerSource
from voice_agent.settings import AgentSettings
from voice_agent.turn_log import JsonLineFormatter

pytestmark = pytest.mark.synth

# ---- the evaluator, on the examples of the CloudWatch Logs "Filter pattern syntax" page ----

DOC_EVENT = {
    "eventType": "UpdateTrail",
    "sourceIPAddress": "111.111.111.111",
    "arrayKey": ["value", "another value"],
    "objectList": [{"name": "a", "id": 1}, {"name": "b", "id": 2}],
    "SomeObject": None,
    "ThisFlag": True,
}
COMPOUND_EVENT = {
    "user": {"id": 1, "email": "John.Stiles@example.com"},
    "users": [
        {"id": 2, "email": "John.Doe@example.com"},
        {"id": 3, "email": "Jane.Doe@example.com"},
    ],
    "actions": ["GET", "PUT", "DELETE"],
    "coordinates": [[0, 1, 2], [4, 5, 6], [7, 8, 9]],
}


@pytest.mark.parametrize(
    "pattern",
    [
        '{ $.eventType = "UpdateTrail" }',
        "{ $.sourceIPAddress != 123.123.* }",
        '{ $.arrayKey[0] = "value" }',
        "{ $.objectList[1].id = 2 }",
        "{ $.SomeObject IS NULL }",
        "{ $.SomeOtherObject NOT EXISTS }",
        "{ $.ThisFlag IS TRUE }",
    ],
)
def test_the_docs_json_examples_match_their_event(pattern: str) -> None:
    assert compile_pattern(pattern)(DOC_EVENT)


@pytest.mark.parametrize(
    "pattern",
    [
        '{ $.eventType = "Update" }',  # exact, not a prefix
        "{ $.ThisFlag IS FALSE }",
        "{ $.SomeObject NOT EXISTS }",  # it exists, as null
        "{ $.eventType IS NULL }",
        "{ $.objectList[5].id = 2 }",
        '{ $.arrayKey = "value" }',  # an array is not a value node
    ],
)
def test_near_misses_of_the_docs_examples_do_not_match(pattern: str) -> None:
    assert not compile_pattern(pattern)(DOC_EVENT)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ('{ ($.user.id = 1) && ($.users[0].email = "John.Doe@example.com") }', True),
        ('{ ($.user.id = 2 && $.users[0].email = "nonmatch") || $.actions[2] = "GET" }', False),
        (
            '{ $.user.email = "John.Stiles@example.com" || $.coordinates[0][1] = nonmatch '
            "&& $.actions[2] = nomatch }",
            True,
        ),
        (
            '{ ($.user.email = "John.Stiles@example.com" || $.coordinates[0][1] = nonmatch) '
            "&& $.actions[2] = nomatch }",
            False,
        ),
    ],
)
def test_the_docs_compound_examples(pattern: str, expected: bool) -> None:
    assert compile_pattern(pattern)(COMPOUND_EVENT) is expected


def test_the_docs_or_and_array_value_examples() -> None:
    bar, baz = '{"foo": "bar"}', '{"foo": "baz"}'
    assert matches("{$.foo = bar}", bar) and not matches("{$.foo = bar}", baz)
    assert matches("{$.foo = baz }", baz)
    assert matches("{$.foo = bar || $.foo = baz }", bar) and matches(
        "{$.foo = bar || $.foo = baz }", baz
    )
    users = '{"users": [1, 2, 3]}'  # a selector on an array matches neither = nor !=
    assert not matches("{$.users = 1}", users) and not matches("{$.users != 1}", users)


def test_wildcards_only_at_the_start_or_end_as_the_doc_says() -> None:
    assert matches("{ $.e = *Event }", '{"e": "PutEvent"}')
    assert matches("{ $.e = *Event }", '{"e": "GetEvent"}')
    assert matches("{ $.e = Event* }", '{"e": "EventName"}')
    assert not matches("{ $.e = Ev*ent }", '{"e": "Evvvent"}')
    assert matches("{ $.e = Ev*ent }", '{"e": "Ev*ent"}')


def test_numeric_comparisons_from_the_doc_on_events_of_our_own() -> None:
    assert matches("{ $.latency >= 500 }", '{"latency": 500}')
    assert not matches("{ $.latency >= 500 }", '{"latency": 499.9}')
    assert matches("{ $.numbers[0] < 10e3 }", '{"numbers": [9999]}')
    assert matches(
        "{ $.processes[4].averageRuntime <= 55.5 }",
        '{"processes": [0,0,0,0,{"averageRuntime": 55.5}]}',
    )
    assert matches("{ $.errorCode != 500 }", '{"errorCode": 400}')
    assert matches("{ $.latency > +1000 }", '{"latency": 1001}')
    # The narrow readings the stacks rely on: null, strings and booleans are not numbers.
    for value in ("null", '"600"', "true"):
        assert not matches("{ $.latency >= 0 }", f'{{"latency": {value}}}')


def test_syntax_outside_the_subset_is_refused() -> None:
    for pattern in ("ERROR", "[ip, user, status_code = 4*]", "{ $.a = %regex% }", "{ $.a IN [1] }"):
        with pytest.raises(ValueError):
            compile_pattern(pattern)


def test_metric_values_are_the_field_or_the_constant() -> None:
    assert metric_value("$.first_sound_ms", '{"first_sound_ms": 212.5}') == 212.5
    assert metric_value("$.first_sound_ms", '{"first_sound_ms": null}') is None
    assert metric_value("1", '{"x": 1}') == 1.0


# ---- the synthesized filters over real log lines ----------------------------------------


@dataclass(frozen=True)
class Filter:
    metric: str
    pattern: str
    value: str
    default: float | None

    def published(self, lines: list[str]) -> list[float]:
        """What the filter publishes for these lines (a value per matching line)."""
        out = []
        for line in lines:
            if matches(self.pattern, line):
                value = metric_value(self.value, line)
                if value is not None:
                    out.append(value)
        return out


def filters(synth: Synthesized, stack: str) -> dict[str, Filter]:
    found = {}
    for res in synth.resources(stack, "AWS::Logs::MetricFilter").values():
        props = res["Properties"]
        (transformation,) = props["MetricTransformations"]
        name = transformation["MetricName"]
        found[name] = Filter(
            name,
            props["FilterPattern"],
            transformation["MetricValue"],
            transformation.get("DefaultValue"),
        )
    return found


class FailingTone(ToneEngine):
    """Test double: the tone engine, failing the one sentence that contains FAILS_ON (the
    model's failures cannot be provoked with the tone double otherwise)."""

    FAILS_ON = "Unspeakable."

    def synthesize(self, text: str, voice: str, speed: float = 1.0, stop: Any = None) -> Any:
        if self.FAILS_ON in text:
            raise RuntimeError("the model failed on this sentence")
        return super().synthesize(text, voice, speed, stop)


async def _until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def _stall_refuse_speak(server: ThreadedServer) -> None:
    """One session stalls (its client never reads), one is refused while it holds the only
    slot, then one speaks a sentence, reports one it cannot speak, and closes."""
    stalled = await non_reader(server.ws)
    try:
        await send(stalled, {"type": "start", "speed": 0.5})
        for _ in range(60):  # 4.6 s of audio each: far more than the socket buffers hold
            await send(stalled, {"type": "text", "text": STALLING_SENTENCE})
        await send(stalled, {"type": "flush"})
        await _until(lambda: server.active_sessions() == 1, "the stalled session")
        async with connect(server.ws) as refused:
            assert json.loads(await asyncio.wait_for(refused.recv(), 10))["code"] == "busy"
        await _until(lambda: server.active_sessions() == 0, "the stalled session to be dropped")
    finally:
        stalled.transport.abort()
    async with connect(server.ws, max_queue=None) as ws:
        await send(ws, {"text": f"Good morning. {FailingTone.FAILS_ON} Good night."})
        await send(ws, {"type": "close"})
        await read_until(ws, is_type("session_end"), timeout=20)


async def _preempt(settings: Settings) -> None:
    """The pre-emption of tests/container/test_scheduling.py: a newcomer's sentence, due now,
    stops a running one whose listener has seconds of audio ahead."""
    settings = dataclasses.replace(settings, synth_workers=1, preempt_max=1, max_segment_chars=600)
    service, engine = gated_service(settings)
    srv = ThreadedServer(settings, service).start()
    try:
        z = await open_session(srv.ws, f"{VERY_LONG} zed one. {VERY_LONG} zed two.")
        await _until(lambda: len(engine.started) == 1, "Z's first sentence in the worker")
        await asyncio.sleep(HOLD_S)
        engine.gate.release()
        await _until(lambda: len(engine.started) == 2, "Z's second sentence in the worker")
        e = await open_session(srv.ws, "Now.")
        await _until(lambda: len(engine.started) == 3, "E's sentence in the worker")
        engine.gate.release(2)
        for ws in (z, e):
            await read_until(ws, is_type("flushed"), timeout=30)
            await send(ws, {"type": "close"})
            await read_until(ws, is_type("session_end"), timeout=30)
            await ws.close()
    finally:
        srv.stop()
        service.shutdown()


@pytest.fixture(scope="module")
def server_lines(base_settings: Settings) -> list[str]:
    settings = dataclasses.replace(base_settings, max_sessions=1, send_stall_s=1.0)
    with json_lines("kokoro", JsonFormatter()) as stream:
        service = ToneSynthesisService(settings)
        service.load()
        service.engine = FailingTone()  # type: ignore[assignment]
        server = ThreadedServer(settings, service).start()
        try:
            asyncio.run(_stall_refuse_speak(server))
        finally:
            server.stop()
            service.shutdown()
        asyncio.run(_preempt(base_settings))
    return stream.getvalue().splitlines()


@pytest.fixture(scope="module")
def agent_lines() -> list[str]:
    async def two_turns() -> None:
        answer = "Your order shipped today. It arrives on Thursday. Anything else?"
        long = "Hi. " + "More words keep coming. " * 40
        async with FakeTtsServer(synth_delay_s=0.05) as tts:
            app = create_app(
                AgentSettings(), ReplayedAnswerSource(answer, 400.0), WebSocketTts(tts.url)
            )
            async with serve(app) as base:
                await invoke_http(base, {"prompt": "where is my order?"})
            talky = create_app(
                AgentSettings(), ReplayedAnswerSource(long, 100.0), WebSocketTts(tts.url)
            )
            async with serve(talky) as base, connect(base.replace("http", "ws") + "/ws") as ws:
                await ws.send(json.dumps({"prompt": "Tell me everything."}))
                while not isinstance(await ws.recv(), bytes):
                    pass  # until the first audio went out, then barge in
                await ws.send(json.dumps({"type": "interrupt", "played_ms": 10}))
                while True:
                    frame = await ws.recv()
                    if isinstance(frame, str) and json.loads(frame)["type"] == "interrupted":
                        break

    with json_lines("voice_agent.turn", JsonLineFormatter()) as stream:
        asyncio.run(two_turns())
    return stream.getvalue().splitlines()


def _records(lines: list[str], logger: str, msg: str) -> list[dict[str, Any]]:
    decoded = [json.loads(line) for line in lines]
    return [r for r in decoded if r.get("logger") == logger and r.get("msg") == msg]


def test_the_stacks_deploy_the_documented_filters(synthesized: Synthesized) -> None:
    assert set(filters(synthesized, TTS)) == {m.name for m in SERVER_METRICS}
    assert set(filters(synthesized, AGENT)) == {m.name for m in AGENT_METRICS}
    for f in (*filters(synthesized, TTS).values(), *filters(synthesized, AGENT).values()):
        compile_pattern(f.pattern)  # every pattern is in the evaluated subset


def test_server_filters_select_the_records_they_name(
    synthesized: Synthesized, server_lines: list[str]
) -> None:
    f = filters(synthesized, TTS)
    ends = _records(server_lines, "kokoro.session", "session end")
    assert [e["ended"] for e in ends].count("stalled") == 1 and len(ends) == 4
    assert f["SessionsEnded"].published(server_lines) == [1.0] * 4
    assert f["SessionsStalled"].published(server_lines) == [1.0]
    refused = _records(server_lines, "kokoro.app", "session refused")
    assert [r["cause"] for r in refused] == ["session_limit"]
    assert f["SessionsRefused"].published(server_lines) == [1.0]
    assert f["SentencesNotSpoken"].published(server_lines) == [1.0]
    assert f["SentencesPreempted"].published(server_lines) == [1.0]
    # Values: each session's first sound (every one spoke), each sentence's RTF.
    sounds = [e["first_sound_ms"] for e in ends]
    assert all(isinstance(ms, float) and ms > 0 for ms in sounds)
    assert f["ServerFirstSoundMs"].published(server_lines) == sounds
    sent = _records(server_lines, "kokoro.session", "sentence sent")
    assert f["ModelRtf"].published(server_lines) == [s["rtf"] for s in sent if s["rtf"] is not None]
    assert len(sent) >= 4
    for name in ("ServerFirstSoundMs", "ModelRtf"):
        assert f[name].default is None  # a timing is never filled in with 0
    assert f["SessionsRefused"].default == 0


def test_agent_filters_select_the_turn_records(
    synthesized: Synthesized, agent_lines: list[str]
) -> None:
    f = filters(synthesized, AGENT)
    turns = _records(agent_lines, "voice_agent.turn", "turn end")
    assert [t["interrupted"] for t in turns] == [False, True]
    assert f["Turns"].published(agent_lines) == [1.0, 1.0]
    assert f["TurnsInterrupted"].published(agent_lines) == [1.0]
    assert f["AgentFirstSoundMs"].published(agent_lines) == [t["first_sound_ms"] for t in turns]
    assert f["AgentFirstTextMs"].published(agent_lines) == [t["first_text_ms"] for t in turns]
    assert all(v > 0 for v in f["AgentFirstSoundMs"].published(agent_lines))


def test_the_real_models_records_publish_first_sound_and_rtf(
    synthesized: Synthesized, server: ThreadedServer
) -> None:
    """The real Kokoro-82M (int8, CPU) speaking the benchmark paragraph (devkit.text): what the
    two value filters publish for one session, printed for docs/monitoring.md."""

    async def speak(log: io.StringIO) -> None:
        async with connect(server.ws, max_queue=None) as ws:
            await send(ws, {"text": PARAGRAPH})
            await send(ws, {"type": "close"})
            await read_until(ws, is_type("session_end"), timeout=240)
        # The record follows the session_end message, once the server closed the session.
        await _until(lambda: '"session end"' in log.getvalue(), "the session end record")

    with json_lines("kokoro", JsonFormatter()) as stream:
        asyncio.run(speak(stream))
    lines = stream.getvalue().splitlines()
    f = filters(synthesized, TTS)
    (sound,) = f["ServerFirstSoundMs"].published(lines)
    rtfs = f["ModelRtf"].published(lines)
    sent = _records(lines, "kokoro.session", "sentence sent")
    assert sound > 0 and len(rtfs) == len(sent) >= 4
    print(
        f"\nreal model, {len(sent)} sentences: ServerFirstSoundMs {sound:.0f} ms; ModelRtf "
        f"{', '.join(f'{r:.2f}' for r in rtfs)}"
    )


def test_every_metric_is_in_the_monitoring_doc() -> None:
    doc = (REPO_ROOT / "docs" / "monitoring.md").read_text(encoding="utf-8")
    for spec in (*SERVER_METRICS, *AGENT_METRICS):
        assert f"| `{spec.name}` |" in doc, spec.name

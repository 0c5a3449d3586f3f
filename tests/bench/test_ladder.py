"""The load ladder (bench/ladder.py) against the real server app on loopback, the tone test
double (devkit/tone.py) in place of the model, through the agent's own transports.

- `--url`: the container's WebSocket route, and what the JSON says about each level: every
  byte each caller heard against the tone's exact payload, refusals, the SLO's stop rule and
  the recommendation that follows.
- `--endpoint-name`: the real `SageMakerBidiTts` and its HTTP/2 SDK client (signing, event
  stream framing), with only the HTTP transport under it replaced by a relay to the same
  server (SageMaker cannot be reached from here), and DescribeEndpoint answered by moto.
- Each setup failure: one line on stderr, exit code 2.
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from smithy_aws_event_stream.events import Event, EventMessage
from smithy_http import Field, Fields
from smithy_http.aio import HTTPResponse
from websockets.asyncio.client import connect

from bench.ladder import ladder_levels, main
from bench.ladder_levels import recommend
from bench.ladder_session import Heard, playback
from bench.ladder_targets import one_line
from devkit.tone import ToneSynthesisService, tone_bytes
from kokoro_server.config import Settings
from smoke.diagnosis import Call, from_exception
from tests.support.aws_doubles import (
    RecordedRequest,
    RecordingTransport,
    sigv4_credential,
    verify_event_signatures,
)
from tests.support.moto_server import moto_server, reset_moto
from tests.support.servers import ThreadedServer
from tests.support.smoke_world import AWS_VARS, ENDPOINT, KEY_ID, REGION, Deployed

TEXT = "Hello there. This is a test."
SENTENCES = ("Hello there.", "This is a test.")  # the server's segmenter cuts TEXT so
ANSWER_BYTES = sum(len(tone_bytes(s)) for s in SENTENCES)  # what each caller must hear
SECRET = "fake-secret-for-loopback-only"
REPO = Path(__file__).resolve().parents[2]
# Generous limits: only the tests of the stop rule make the SLO break.
LENIENT = ["--slo-first-sound-p95-ms", "60000", "--slo-max-stall-ratio", "1"]


def ladder(out: Path, *target: str, levels: str = "1,2") -> list[str]:
    """A small, quick ladder: two short sentences per caller, fast text, bounded waits."""
    return [
        *target,
        *("--levels", levels, "--text", TEXT, "--stagger-s", "0.1", "--tokens-per-s", "400"),
        *("--settle-s", "0.2", "--level-timeout-s", "15", "--time-limit-s", "40"),
        *("--out", str(out), "--no-plot"),
    ]


def serve_tone(delay_s: float, **settings: Any) -> Iterator[ThreadedServer]:
    base = Settings(host="127.0.0.1", max_load=0, **settings)  # admission by count only
    service = ToneSynthesisService(base, delay_s=delay_s)
    service.load()
    server = ThreadedServer(base, service).start()
    yield server
    server.stop()
    service.shutdown()


@pytest.fixture(scope="module")
def tone_double() -> Iterator[ThreadedServer]:
    yield from serve_tone(0.01)


@pytest.fixture(scope="module")
def one_session_server() -> Iterator[ThreadedServer]:
    """Admits one session at a time; each lasts well past the next caller's arrival."""
    yield from serve_tone(0.3, max_sessions=1)


def assert_every_byte_heard(level: dict[str, Any]) -> None:
    heard = [c for c in level["callers"] if c["outcome"] == "ok"]
    assert len(heard) == level["ok"]
    for caller in heard:
        assert caller["sentences"] == len(SENTENCES)
        assert caller["audio_bytes"] == caller["announced_bytes"] == ANSWER_BYTES
        assert caller["audio_s"] == pytest.approx(ANSWER_BYTES / 2 / 24000)
        assert 0 < caller["first_byte_s"] <= caller["first_sound_s"]
        assert len(caller["synth_ms"]) == len(SENTENCES)
        assert caller["stalls"] >= 0 and caller["stall_s"] >= 0
    assert level["audio_bytes"] == level["announced_bytes"]  # every byte announced arrived
    sound = level["first_sound"]
    assert sound["n"] == len(heard) and 0 < sound["median"] <= sound["p95"]
    assert level["model"]["sentences"] == len(heard) * len(SENTENCES)


def test_a_small_ladder_hears_every_byte_and_recommends_by_the_rule(
    tone_double: ThreadedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ladder.json"
    argv = [a for a in ladder(out, "--url", tone_double.ws) if a != "--no-plot"]
    assert main([*argv, *LENIENT]) == 0
    result = json.loads(out.read_text())
    assert result["target"]["kind"] == "url"
    assert [level["sessions"] for level in result["levels"]] == [1, 2]
    for level in result["levels"]:
        assert level["ok"] == level["sessions"] and level["broken"] == []
        assert level["refused"] == level["failed"] == level["timed_out"] == 0
        assert_every_byte_heard(level)
        assert 1 <= level["peak_open_sessions"] <= level["sessions"]
        assert level["server_cpu"] is None  # not a server the ladder started
    assert result["server_cpu_note"].startswith("not measured")
    recommendation = result["recommendation"]
    assert recommendation["highest_passing_level"] == 2
    assert recommendation["target_concurrency_per_instance"] == 1  # floor(0.75 x 2)
    assert recommendation["cdk_context"] == "-c target_concurrency_per_instance=1"
    assert "no level broke the SLO" in recommendation["note"]
    assert result["stopped"].startswith("every level held the SLO")
    assert out.with_suffix(".png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "first sound p95" in printed and "floor(0.75 x 2) = 1" in printed


def test_a_level_that_refuses_is_reported_as_refusals_and_stops_the_ladder(
    one_session_server: ThreadedServer, tmp_path: Path
) -> None:
    out = tmp_path / "ladder.json"
    assert main([*ladder(out, "--url", one_session_server.ws, levels="1,2,4"), *LENIENT]) == 0
    result = json.loads(out.read_text())
    first, second = result["levels"]  # level 4 never ran
    assert (first["ok"], first["refused"], first["broken"]) == (1, 0, [])
    assert_every_byte_heard(first)
    assert (second["ok"], second["refused"], second["failed"]) == (1, 1, 0)
    assert_every_byte_heard(second)  # the admitted caller lost nothing
    [refused] = [c for c in second["callers"] if c["outcome"] == "refused"]
    assert "busy" in refused["error"] and refused["audio_bytes"] == 0
    assert second["broken"] == ["1 session(s) refused (at most 0)"]
    assert result["stopped"].startswith("level 2 broke the SLO")
    recommendation = result["recommendation"]
    assert (recommendation["highest_passing_level"], recommendation["rule"]) == (
        1,
        "floor(0.75 x 1) = 0",
    )
    assert recommendation["cdk_context"] is None and "at least 1" in recommendation["note"]


def test_a_first_sound_slo_nobody_meets_stops_at_level_one(
    tone_double: ThreadedServer, tmp_path: Path
) -> None:
    out = tmp_path / "ladder.json"
    argv = ladder(out, "--url", tone_double.ws, "--headroom", "0.5")
    assert main([*argv, "--slo-first-sound-p95-ms", "0.001", "--slo-max-stall-ratio", "1"]) == 0
    result = json.loads(out.read_text())
    [level] = result["levels"]
    assert level["sessions"] == 1 and level["ok"] == 1
    assert_every_byte_heard(level)
    assert level["broken"][0].startswith("first sound p95 ") and "> 0.001 ms" in level["broken"][0]
    assert result["stopped"].startswith("level 1 broke the SLO: first sound p95")
    assert result["recommendation"]["target_concurrency_per_instance"] == 0
    assert result["recommendation"]["rule"] == "floor(0.5 x 0) = 0"


def test_a_caller_that_closes_after_its_text_is_counted_in_streams_too(
    tone_double: ThreadedServer, tmp_path: Path
) -> None:
    out = tmp_path / "ladder.json"
    assert main([*ladder(out, "--url", tone_double.ws, "--hold", "answer"), *LENIENT]) == 0
    result = json.loads(out.read_text())
    assert result["settings"]["hold"] == "answer"
    for level in result["levels"]:
        assert_every_byte_heard(level)
    streams = result["levels"][-1]["peak_open_sessions"]
    assert f"at level 2 at most {streams} were open at once" in result["recommendation"]["note"]


def test_the_playback_clock_counts_only_the_silence_between_arrivals() -> None:
    # Heard 0-1 s; the second frame was in hand at 0.5 s and plays 1-2 s; the third arrives
    # at 2.5 s: 0.5 s of silence. A frame arriving as the audio runs out is no stall.
    assert playback([(0.0, 1.0), (0.5, 1.0), (2.5, 0.5)]) == Heard(1, 0.5, 2.5)
    assert playback([(0.2, 1.0), (1.2, 1.0)]) == Heard(0, 0.0, 2.0)
    assert playback([]) == Heard(0, 0.0, 0.0)


def test_levels_double_up_to_the_most_sessions_and_the_target_rounds_down() -> None:
    assert ladder_levels(None, 16) == [1, 2, 4, 8, 16]
    assert ladder_levels(None, 12) == [1, 2, 4, 8, 12]
    assert ladder_levels("3,1,2,3", 99) == [1, 2, 3]
    held = {"broken": [], "peak_open_sessions": 4, "sessions": 4}
    broke = {"broken": ["x"], "peak_open_sessions": 8, "sessions": 8}
    assert recommend([held, broke], 0.75, "call")["target_concurrency_per_instance"] == 3


def test_the_tone_target_is_its_own_process_and_its_cpu_is_read(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    assert (
        main([*ladder(out, "--target", "tone", "--tone-delay-ms", "5", levels="1"), *LENIENT]) == 0
    )
    result = json.loads(out.read_text())
    [level] = result["levels"]
    assert_every_byte_heard(level)
    assert level["server_cpu"]["cpu_s"] >= 0 and level["server_cpu"]["cores"] >= 0
    assert result["settings"]["tone_delay_ms"] == 5
    assert result["target"]["kind"] == "tone"


# ------------------------------------------------------------------ the SageMaker stream path


def _events(buffer: bytearray) -> Iterator[Event]:
    """Whole event-stream messages from the front of `buffer` (removed as they are read)."""
    while len(buffer) >= 4 and len(buffer) >= (total := int.from_bytes(buffer[:4], "big")):
        event = Event.decode(io.BytesIO(bytes(buffer[:total])))
        del buffer[:total]
        if event is not None:
            yield event


def _payload_part(frame: bytes | str) -> bytes:
    binary = isinstance(frame, bytes)
    headers = {
        ":message-type": "event",
        ":event-type": "PayloadPart",
        ":content-type": "application/octet-stream",
        "DataType": "BINARY" if binary else "UTF8",
        "CompletionState": "COMPLETE",
    }
    data = frame if isinstance(frame, bytes) else frame.encode()
    return EventMessage(headers=headers, payload=data).encode()


class SageMakerStreamRelay(RecordingTransport):
    """TEST DOUBLE for the HTTP transport under the SageMaker SDK client: SageMaker cannot be
    reached from here. Each InvokeEndpointWithBidirectionalStream request, as the real client
    built and signed it, is recorded and served the way SageMaker's sidecar serves it: the
    container's WebSocket route is opened (the real server on loopback), every request
    payload part goes to it as a frame, and every frame comes back as a response payload
    part (BINARY audio, UTF8 control JSON). `fail_with` answers AWS's error instead."""

    def __init__(self, ws_url: str) -> None:
        super().__init__()
        self.ws_url = ws_url
        self.error: tuple[int, str, str] | None = None

    def fail_with(self, status: int, code: str, message: str) -> None:
        self.error = (status, code, message)

    async def send(self, request: Any, *, request_config: Any = None) -> HTTPResponse:
        uri = request.destination
        recorded = RecordedRequest(
            request.method,
            uri.scheme,
            uri.host,
            uri.port,
            uri.path or "/",
            {f.name.lower(): f.as_string() for f in request.fields},
        )
        self.requests.append(recorded)
        if self.error is not None:
            status, code, message = self.error
            fields = [Field(name="x-amzn-errortype", values=[code])]
            body = json.dumps({"Message": message}).encode()  # the shapes' member name
            return HTTPResponse(status=status, fields=Fields(fields), body=body)
        ws = await connect(self.ws_url, max_size=None)
        pump = asyncio.create_task(self._to_container(request.body, recorded, ws))
        self._readers.add(pump)
        pump.add_done_callback(self._readers.discard)

        async def from_container() -> AsyncIterator[bytes]:
            try:
                async for frame in ws:
                    yield _payload_part(frame)
            finally:
                pump.cancel()
                await ws.close()

        fields = [Field(name="content-type", values=["application/vnd.amazon.eventstream"])]
        return HTTPResponse(status=200, fields=Fields(fields), body=from_container())

    @staticmethod
    async def _to_container(body: Any, recorded: RecordedRequest, ws: Any) -> None:
        pending = bytearray()
        async for chunk in body:
            recorded.body.extend(chunk)
            pending.extend(chunk)
            for signed in _events(pending):  # each wraps one event in its signature
                if not signed.message.payload:
                    continue  # the empty event that ends the signed stream
                part = Event.decode(io.BytesIO(signed.message.payload))
                assert part is not None
                data = part.message.payload
                await ws.send(data.decode() if part.message.headers["DataType"] == "UTF8" else data)


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def aws(moto_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Deployed:
    """Fake keys, no config files, DescribeEndpoint answered by an empty moto account."""
    for name in AWS_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER", moto_url)
    reset_moto(moto_url)
    return Deployed(moto_url)


def test_the_endpoint_path_runs_through_the_real_sagemaker_client(
    tone_double: ThreadedServer, aws: Deployed, tmp_path: Path
) -> None:
    aws.endpoint()
    relay = SageMakerStreamRelay(tone_double.ws)
    out = tmp_path / "ladder.json"
    argv = [*ladder(out, "--endpoint-name", ENDPOINT, "--region", REGION), *LENIENT]
    assert main(argv, stream_http=relay) == 0
    result = json.loads(out.read_text())
    assert result["target"]["kind"] == "endpoint"
    assert (
        result["target"]["description"] == f"SageMaker endpoint {ENDPOINT} in {REGION} (InService)"
    )
    for level in result["levels"]:
        assert level["ok"] == level["sessions"]
        assert_every_byte_heard(level)
    assert len(relay.requests) == 1 + 1 + 2  # the warm-up, then levels 1 and 2
    for request in relay.requests:
        assert (request.method, request.port) == ("POST", 8443)
        assert request.path == f"/endpoints/{ENDPOINT}/invocations-bidirectional-stream"
        credential = sigv4_credential(request.headers["authorization"])
        assert (credential.access_key_id, credential.region, credential.service) == (
            KEY_ID,
            REGION,
            "sagemaker",
        )
    signed = verify_event_signatures(
        bytes(relay.requests[-1].body), credential, SECRET, region=REGION, service="sagemaker"
    )
    assert signed >= 1 + 4 + 1  # start, the text deltas, flush, close and the end event


def run_failing(argv: list[str], capsys: pytest.CaptureFixture[str], **kwargs: Any) -> str:
    assert main(argv, **kwargs) == 2
    captured = capsys.readouterr()
    assert "wrote" not in captured.out  # nothing was measured
    [line] = captured.err.strip().splitlines()
    assert line.startswith("error: ") and "Traceback" not in captured.err
    return line


def test_a_missing_endpoint_is_one_line(
    aws: Deployed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = run_failing(
        ladder(tmp_path / "x.json", "--endpoint-name", ENDPOINT, "--region", REGION), capsys
    )
    # botocore's ClientError code: moto says ValidationException, SageMaker ValidationError.
    assert f"DescribeEndpoint: endpoint {ENDPOINT} not found (Validation" in line
    assert not (tmp_path / "x.json").exists()


def test_no_credentials_is_one_line(
    aws: Deployed,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    aws.endpoint()
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    line = run_failing(
        ladder(tmp_path / "x.json", "--endpoint-name", ENDPOINT, "--region", REGION), capsys
    )
    assert "no AWS credentials found" in line


def test_an_endpoint_in_another_region_is_a_region_mismatch(
    aws: Deployed,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    aws.endpoint()  # in us-east-1, the region the environment names
    monkeypatch.setenv("AWS_REGION", REGION)
    argv = ladder(tmp_path / "x.json", "--endpoint-name", ENDPOINT, "--region", "eu-west-1")
    line = run_failing(argv, capsys)
    assert line == (
        f"error: region mismatch: endpoint {ENDPOINT} is not in eu-west-1 (from --region) but "
        f"in {REGION} (from AWS_REGION); pass --region {REGION}"
    )


def test_an_arn_from_another_region_and_an_unknown_region_are_one_line(
    aws: Deployed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arn = f"arn:aws:sagemaker:{REGION}:123456789012:endpoint/{ENDPOINT}"
    argv = ladder(tmp_path / "x.json", "--endpoint-name", arn, "--region", "eu-west-1")
    assert "region mismatch: the endpoint ARN is in us-east-1" in run_failing(argv, capsys)
    argv = ladder(tmp_path / "x.json", "--endpoint-name", ENDPOINT, "--region", "mars-north-1")
    assert "invalid AWS region 'mars-north-1' (from --region)" in run_failing(argv, capsys)


def test_a_signature_for_another_region_reads_as_a_region_mismatch() -> None:
    """botocore's answer when a request signed for one region reached another's service (an
    endpoint override): the code alone would say bad credentials; AWS's text tells them apart."""
    call = Call("DescribeEndpoint", "sagemaker:DescribeEndpoint", f"endpoint {ENDPOINT}")

    def answered(message: str) -> str:
        error = {"Code": "InvalidSignatureException", "Message": message}
        exc = ClientError({"Error": error, "ResponseMetadata": {"HTTPStatusCode": 403}}, "Describe")
        return one_line(from_exception(exc, call))

    assert answered("Credential should be scoped to a valid region.").startswith(
        "region mismatch: the request was signed for one region and answered by another"
    )
    assert answered("The request signature we calculated does not match.").startswith(
        "DescribeEndpoint: AWS rejected the credentials (InvalidSignatureException"
    )


@pytest.mark.parametrize(
    ("status", "code", "message", "expected"),
    [
        # The stream API's modeled validation error (the HTTP/2 SDK raises it with AWS's text).
        (
            400,
            "InputValidationError",
            f"Endpoint {ENDPOINT} of account 123456789012 not found.",
            f"endpoint {ENDPOINT} not found (SageMaker InputValidationError: Endpoint {ENDPOINT}",
        ),
        # Unmodeled ones: the SDK keeps the code, not the text.
        (
            403,
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
            "AWS rejected the credentials (UnrecognizedClientException",
        ),
        (
            403,
            "AccessDeniedException",
            "User: arn:aws:iam::123456789012:user/dev is not "
            f"authorized to perform: sagemaker:InvokeEndpointWithBidirectionalStream on resource: "
            f"arn:aws:sagemaker:{REGION}:123456789012:endpoint/{ENDPOINT}",
            "missing permission sagemaker:InvokeEndpointWithBidirectionalStream",
        ),
    ],
)
def test_the_streams_own_refusal_is_one_line(
    tone_double: ThreadedServer,
    aws: Deployed,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    status: int,
    code: str,
    message: str,
    expected: str,
) -> None:
    """DescribeEndpoint finds the endpoint; the stream itself is refused (AWS's error shape)."""
    aws.endpoint()
    relay = SageMakerStreamRelay(tone_double.ws)
    relay.fail_with(status, code, message)
    argv = ladder(tmp_path / "x.json", "--endpoint-name", ENDPOINT, "--region", REGION)
    line = run_failing(argv, capsys, stream_http=relay)
    assert expected in line
    assert len(relay.requests) == 1  # the warm-up found it; no level ran


def closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return int(sock.getsockname()[1])


@pytest.mark.slow  # runs the command as its own process
def test_an_unreachable_url_is_one_line_from_the_command_line(tmp_path: Path) -> None:
    url = f"ws://127.0.0.1:{closed_port()}"
    done = subprocess.run(
        [sys.executable, "-m", "bench.ladder", *ladder(tmp_path / "x.json", "--url", url)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done
    assert done.stderr.strip() == (
        f"error: cannot reach {url}/invocations-bidirectional-stream (ConnectionRefusedError: "
        f"[Errno 111] Connect call failed ('127.0.0.1', {url.rsplit(':', 1)[1]})): is the "
        "server running (make tts-server)?"
    )

"""What the load ladder measures: a server it starts, one already running, or a deployed endpoint.

- `model`: the real server (`container/serve`, real Kokoro-82M on CPU here) as a child process
  on 127.0.0.1; `tone`: the same app with the tone test double (`bench/ladder_tone.py`). The
  ladder started them, so it reads their CPU time (/proc/<pid>/stat).
- `--url`: a running server's bidirectional route, through the agent's WebSocket transport.
- `--endpoint-name`: a deployed SageMaker endpoint through the agent's SageMaker transport
  (InvokeEndpointWithBidirectionalStream, HTTP/2, SigV4 with botocore's credential chain).
  Before any load: the region, the credentials and DescribeEndpoint, each failure told apart
  by botocore's error codes (smoke/diagnosis.py), one line each.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import boto3
from kokoro_stream.base import TtsTransport
from kokoro_stream.events import TtsFailure
from kokoro_stream.websocket import WebSocketTts, bidi_url
from smithy_http.aio.interfaces import HTTPClient

from bench.ladder_session import REFUSED, Caller
from devkit.paths import OUT_DIR, SERVE
from devkit.processes import child_process, free_port, wait_healthy
from smoke.aws import Region, SetupError, make_client, make_session, require_credentials
from smoke.aws import resolve_region as smoke_region
from smoke.diagnosis import Call, Cause, Diagnosis, container_error, from_event, from_exception
from smoke.endpoint_status import EndpointState, endpoint_state

AWS_TIMEOUT_S = 20.0  # each control-plane call (DescribeEndpoint)
START_TIMEOUT_S = 300.0  # the local model loads and warms up before /ping says 200
SERVER_LOG = OUT_DIR / "ladder-server.log"
STREAM = "InvokeEndpointWithBidirectionalStream"


class LadderError(Exception):
    """The ladder cannot run against this target; the message is one line for the user."""


@dataclass
class LadderTarget:
    kind: str  # "model", "tone", "url" or "endpoint"
    description: str
    transport: TtsTransport
    explain: Callable[[Caller], str]  # one line: why a single session could not be served
    cpu_s: Callable[[], float | None] = lambda: None
    cpu_note: str = ""
    same_machine: bool = False  # the server runs on this machine (its providers are known)


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (Linux /proc); None elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def open_target(
    args: argparse.Namespace, stream_http: HTTPClient | None = None
) -> Iterator[LadderTarget]:
    """The target the flags name; a server started here is stopped on exit.

    `stream_http`: the HTTP transport under the SageMaker SDK client (tests); None: awscrt."""
    if args.endpoint_name:
        yield endpoint_target(args, stream_http)
    elif args.url:
        yield url_target(args.url)
    else:
        with local_target(args) as target:
            yield target


@contextmanager
def local_target(args: argparse.Namespace) -> Iterator[LadderTarget]:
    port = free_port()
    env = {**os.environ, **args.server_env, "KOKORO_HOST": "127.0.0.1", "KOKORO_PORT": str(port)}
    if args.target == "tone":
        cmd = [sys.executable, "-m", "bench.ladder_tone", "--port", str(port)]
        cmd += ["--delay-ms", f"{args.tone_delay_ms:g}"]
        what = f"the tone test double ({args.tone_delay_ms:g} ms per sentence) on 127.0.0.1"
    else:
        cmd = [sys.executable, str(SERVE)]
        what = "the real server (container/serve, real Kokoro-82M) on 127.0.0.1"
    base_url = f"http://127.0.0.1:{port}"
    print(f"Starting {what} (log: {SERVER_LOG}) ...", flush=True)
    with child_process(cmd, env, SERVER_LOG) as proc:
        try:
            wait_healthy(base_url, START_TIMEOUT_S, proc)
        except (TimeoutError, RuntimeError) as exc:
            raise LadderError(f"the local server did not start: {exc} (log: {SERVER_LOG})") from exc
        url = bidi_url(base_url)
        yield LadderTarget(
            args.target,
            f"{what}, started by the ladder",
            WebSocketTts(url),
            lambda caller: _url_problem(url, caller),
            lambda: process_cpu_s(proc.pid),
            "the server process's user + system CPU time over each level, in cores",
            same_machine=True,
        )


def url_target(raw: str) -> LadderTarget:
    try:
        url = bidi_url(raw)
    except ValueError as exc:
        raise LadderError(str(exc)) from exc
    return LadderTarget(
        "url",
        f"running server at {url}",
        WebSocketTts(url),
        lambda caller: _url_problem(url, caller),
        cpu_note="not measured: the ladder did not start this server",
    )


def _url_problem(url: str, caller: Caller) -> str:
    if caller.outcome == REFUSED:
        return f"{url} refused a single session ({caller.error}): it is full already"
    if isinstance(caller.failure, OSError | TimeoutError):
        return f"cannot reach {url} ({caller.error}): is the server running (make tts-server)?"
    return f"a single session to {url} failed: {caller.error}"


def endpoint_target(args: argparse.Namespace, stream_http: HTTPClient | None) -> LadderTarget:
    from kokoro_stream.sagemaker import SageMakerBidiTts  # loads the HTTP/2 SDK

    name, arn_region = endpoint_name_and_region(args.endpoint_name)
    if args.profile:
        os.environ["AWS_PROFILE"] = args.profile  # the stream's own botocore session reads it
    try:
        session = make_session(args.profile)
        region = resolve_region(session, args.region, arn_region)
        require_credentials(session)
        state = check_endpoint(session, name, region)
    except SetupError as exc:
        raise LadderError(one_line(exc.diagnosis)) from exc
    call = Call(STREAM, f"sagemaker:{STREAM}", f"endpoint {name}", stream=True)
    return LadderTarget(
        "endpoint",
        f"SageMaker endpoint {name} in {region.name} ({state.status})",
        SageMakerBidiTts(name, region=region.name, transport=stream_http),
        lambda caller: _stream_problem(call, caller),
        cpu_note="not measured here: read the endpoint's CPUUtilization and GPUUtilization "
        "in CloudWatch (namespace /aws/sagemaker/Endpoints)",
    )


def endpoint_name_and_region(value: str) -> tuple[str, str | None]:
    """An endpoint name, or its ARN (arn:aws:sagemaker:REGION:ACCOUNT:endpoint/NAME)."""
    if not value.startswith("arn:"):
        return value, None
    parts = value.split(":", 5)
    if len(parts) != 6 or parts[2] != "sagemaker" or not parts[5].startswith("endpoint/"):
        raise LadderError(f"not a SageMaker endpoint ARN: {value}")
    return parts[5].removeprefix("endpoint/"), parts[3]


def resolve_region(session: boto3.Session, explicit: str | None, arn_region: str | None) -> Region:
    region = smoke_region(session, explicit or arn_region, dict(os.environ))
    if arn_region and region.name != arn_region:
        raise LadderError(
            f"region mismatch: the endpoint ARN is in {arn_region}, --region says {region.name}"
        )
    return region


def check_endpoint(session: boto3.Session, name: str, region: Region) -> EndpointState:
    """DescribeEndpoint in `region`; not there but in another region the user configured
    (AWS_REGION, AWS_DEFAULT_REGION, the profile's): say that one."""
    state = _described(session, name, region)
    if state.problem is None:
        return state
    if state.problem.cause is Cause.NOT_FOUND:
        for other in configured_regions(session, region):
            found = _described(session, name, other)
            if found.problem is None and not found.status.startswith("unknown"):
                raise LadderError(
                    f"region mismatch: endpoint {name} is not in {region.name} (from "
                    f"{region.source}) but in {other.name} (from {other.source}); "
                    f"pass --region {other.name}"
                )
    raise LadderError(one_line(state.problem))


def _described(session: boto3.Session, name: str, region: Region) -> EndpointState:
    client = make_client(session, "sagemaker", region.name, AWS_TIMEOUT_S)
    return endpoint_state(client, name, AWS_TIMEOUT_S)


def configured_regions(session: boto3.Session, chosen: Region) -> list[Region]:
    candidates = (
        (os.environ.get("AWS_REGION"), "AWS_REGION"),
        (os.environ.get("AWS_DEFAULT_REGION"), "AWS_DEFAULT_REGION"),
        (session.region_name, "the profile"),
    )
    seen = {chosen.name}
    regions = []
    for name, source in candidates:
        if name and name.strip() not in seen:
            seen.add(name.strip())
            regions.append(Region(name.strip(), source))
    return regions


def one_line(diagnosis: Diagnosis) -> str:
    text = f"{diagnosis.summary}; {diagnosis.advice}"
    if diagnosis.cause is Cause.BAD_CREDENTIALS and "scoped to" in diagnosis.summary:
        # SigV4's answer when the request was signed for one region and reached another.
        text = (
            f"region mismatch: the request was signed for one region and answered by another "
            f"({diagnosis.summary}); check --region and any AWS_ENDPOINT_URL* setting"
        )
    return " ".join(text.split())  # one line, whatever the service's message holds


def _stream_problem(call: Call, caller: Caller) -> str:
    failure = caller.failure
    if caller.outcome == REFUSED:
        return f"the endpoint refused a single session ({caller.error}): it is full already"
    if isinstance(failure, TtsFailure):
        if failure.code.startswith("tts_"):  # the transport's own failure, AWS's cause inside
            return one_line(from_event(failure.code, failure.message, call))
        return one_line(container_error(call, failure.code, failure.message))
    if isinstance(failure, BaseException):
        return one_line(from_exception(failure, call, AWS_TIMEOUT_S))
    return f"a single session failed: {caller.error}"

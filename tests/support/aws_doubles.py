"""Stand-ins for what cannot exist here (AWS itself), and readers for what the real SDKs send.

- `RecordingTransport`: test double for the SageMaker SDK's HTTP transport only. It records
  each request exactly as the real client built and signed it, reads the event-stream body,
  and answers a canned AccessDenied so nothing leaves the machine.
- `WebSocketBridgedSageMakerClient`: test double for the SageMaker SDK client whose
  bidirectional streams reach a real Kokoro server's WebSocket route.
- `ContainerCredentialsEndpoint`: a loopback HTTP server speaking the container credentials
  protocol (what ECS / AgentCore serve at AWS_CONTAINER_CREDENTIALS_FULL_URI).
- `sigv4_credential` / `verify_event_signatures`: read the SigV4 Authorization header, and
  check an event stream's signature chain independently of the SDK's signer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import io
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any

from aws_sdk_sagemaker_runtime_http2.models import (
    InvokeEndpointWithBidirectionalStreamOutput,
    RequestStreamEvent,
    RequestStreamEventPayloadPart,
    ResponsePayloadPart,
    ResponseStreamEventPayloadPart,
)
from smithy_aws_event_stream.events import Event, EventHeaderEncoder
from smithy_core.aio.eventstream import DuplexEventStream
from smithy_core.aio.interfaces.eventstream import EventPublisher
from smithy_http import Field, Fields
from smithy_http.aio import HTTPResponse
from websockets.asyncio.client import connect

from tests.support.http_thread import HttpThread

# ----------------------------------------------------------------- SageMaker HTTP transport


@dataclass
class RecordedRequest:
    method: str
    scheme: str
    host: str
    port: int | None
    path: str
    headers: dict[str, str]
    body: bytearray = field(default_factory=bytearray)
    body_done: asyncio.Event = field(default_factory=asyncio.Event)


class RecordingTransport:
    """Test double for the HTTP transport (the SDK's `transport` config); AWS is not reachable.
    It answers once the client has closed its request stream, so the stream stays writable."""

    SUPPORTS_DUPLEX_STREAMING = True  # so the SDK accepts it for a duplex stream, like awscrt
    TIMEOUT_EXCEPTIONS: tuple[type[Exception], ...] = ()

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._readers: set[asyncio.Task[None]] = set()

    def __deepcopy__(self, memo: dict[int, Any]) -> RecordingTransport:
        return self  # the SDK deep-copies its config; the recording must stay shared

    async def send(self, request: Any, *, request_config: Any = None) -> HTTPResponse:
        uri = request.destination
        recorded = RecordedRequest(
            method=request.method,
            scheme=uri.scheme,
            host=uri.host,
            port=uri.port,
            path=uri.path or "/",
            headers={f.name.lower(): f.as_string() for f in request.fields},
        )
        self.requests.append(recorded)
        reader = asyncio.create_task(self._read_body(request.body, recorded))
        self._readers.add(reader)
        reader.add_done_callback(self._readers.discard)
        await recorded.body_done.wait()
        return HTTPResponse(
            status=403,
            fields=Fields(
                [
                    Field(name="content-type", values=["application/json"]),
                    Field(name="x-amzn-errortype", values=["AccessDeniedException"]),
                ]
            ),
            body=b'{"message": "answered by the test transport"}',
        )

    @staticmethod
    async def _read_body(body: Any, recorded: RecordedRequest) -> None:
        try:
            async for chunk in body:
                recorded.body.extend(chunk)
        finally:
            recorded.body_done.set()

    async def close(self) -> None:
        for reader in list(self._readers):
            reader.cancel()


class _WebSocketInput(EventPublisher[RequestStreamEvent]):
    """The request side of a bridged stream: each payload part as one WebSocket frame."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws

    async def send(self, event: RequestStreamEvent) -> None:
        # What the client sends on this stream: payload parts, each with its bytes.
        assert isinstance(event, RequestStreamEventPayloadPart), event
        assert event.value.bytes_ is not None, event
        await self._ws.send(event.value.bytes_.decode("utf-8"))

    async def close(self) -> None:
        return None  # the server ends the session after `close`; the socket follows


class _WebSocketOutput:
    """The response side: text frames as UTF8 payload parts, binary frames as BINARY ones."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._parts()

    async def _parts(self) -> AsyncIterator[Any]:
        async for frame in self._ws:
            binary = isinstance(frame, bytes)
            data = frame if binary else frame.encode("utf-8")
            part = ResponsePayloadPart(bytes_=data, data_type="BINARY" if binary else "UTF8")
            yield ResponseStreamEventPayloadPart(value=part)

    async def close(self) -> None:
        await self._ws.close()


class WebSocketBridgedSageMakerClient:
    """Test double for the SageMaker SDK client (AWS is not reachable): each bidirectional
    stream is relayed to a real Kokoro server's WebSocket route, as SageMaker's sidecar does
    (request parts in as frames; frames back as UTF8 / BINARY payload parts)."""

    def __init__(self, ws_url: str) -> None:
        self.ws_url = ws_url
        self.endpoints: list[str] = []

    async def invoke_endpoint_with_bidirectional_stream(self, request: Any) -> Any:
        self.endpoints.append(request.endpoint_name)
        ws = await connect(self.ws_url, max_size=None)
        output: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        output.set_result((InvokeEndpointWithBidirectionalStreamOutput(), _WebSocketOutput(ws)))
        return DuplexEventStream(input_stream=_WebSocketInput(ws), output_future=output)


# ------------------------------------------------------------------ SigV4 on the wire


@dataclass(frozen=True)
class SigV4Credential:
    access_key_id: str
    date: str
    region: str
    service: str
    signature: str


def sigv4_credential(authorization: str) -> SigV4Credential:
    """`AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/sagemaker/aws4_request, ...`"""
    algorithm, _, rest = authorization.partition(" ")
    assert algorithm == "AWS4-HMAC-SHA256", authorization
    parts = dict(p.strip().split("=", 1) for p in rest.split(","))
    key_id, date, region, service, terminator = parts["Credential"].split("/")
    assert terminator == "aws4_request", authorization
    return SigV4Credential(key_id, date, region, service, parts["Signature"])


def _signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def verify_event_signatures(
    body: bytes, seed: SigV4Credential, secret: str, *, region: str, service: str
) -> int:
    """Checks every event's `:chunk-signature` against `secret` (AWS4-HMAC-SHA256-PAYLOAD,
    chained from the request's signature); returns how many events were checked."""
    prior = seed.signature
    reader = io.BytesIO(body)
    checked = 0
    while (event := Event.decode(reader)) is not None:
        headers = event.message.headers
        date = headers[":date"]
        assert isinstance(date, datetime)
        timestamp = date.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        encoder = EventHeaderEncoder()
        encoder.encode_headers({":date": date})
        string_to_sign = "\n".join(
            [
                "AWS4-HMAC-SHA256-PAYLOAD",
                timestamp,
                f"{timestamp[:8]}/{region}/{service}/aws4_request",
                prior,
                hashlib.sha256(encoder.get_result()).hexdigest(),
                hashlib.sha256(event.message.payload).hexdigest(),
            ]
        )
        key = _signing_key(secret, timestamp[:8], region, service)
        expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).digest()
        if headers[":chunk-signature"] != expected:
            raise AssertionError(f"event {checked} is not signed with this secret")
        prior = expected.hex()
        checked += 1
    return checked


# ------------------------------------------------- container credentials endpoint (loopback)


@dataclass(frozen=True)
class RoleCredentials:
    access_key_id: str
    secret_access_key: str
    token: str
    expires_in: timedelta

    def document(self) -> dict[str, str]:
        expiration = datetime.now(UTC) + self.expires_in
        return {
            "AccessKeyId": self.access_key_id,
            "SecretAccessKey": self.secret_access_key,
            "Token": self.token,
            "Expiration": expiration.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }


class ContainerCredentialsEndpoint:
    """Serves `credentials` in turn (the last one repeats), as the container credentials
    endpoint does; records the Authorization header of every request."""

    def __init__(self, credentials: list[RoleCredentials]) -> None:
        self.credentials = credentials
        self.authorizations: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.authorizations.append(self.headers.get("Authorization"))
                index = min(len(outer.authorizations), len(outer.credentials)) - 1
                body = json.dumps(outer.credentials[index].document()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return None

        self._host = HttpThread(Handler)
        self.url = f"http://127.0.0.1:{self._host.port}/v2/credentials"

    @contextlib.contextmanager
    def running(self) -> Iterator[ContainerCredentialsEndpoint]:
        self._host.start()
        try:
            yield self
        finally:
            self._host.stop()


# ------------------------------------------------------------------- boto3 / botocore


def fake_aws_env(monkeypatch: Any, home: Any) -> None:
    """Fake keys in the environment, no config or credentials files (under `home`), no
    instance metadata: what a loopback front door needs to be signed for."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDLOOPBACKONLY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-for-loopback-only")
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@dataclass
class SentByBotocore:
    url: str
    headers: dict[str, str]


class _CannedBody:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._data


class BotocoreRecorder:
    """A botocore `before-send` handler: records the request a real boto3 client signed, and
    answers AccessDenied in its place, so nothing leaves the machine (AWS is not reachable)."""

    def __init__(self) -> None:
        self.sent: list[SentByBotocore] = []

    def __call__(self, request: Any, **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        headers = {
            k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()
        }
        self.sent.append(SentByBotocore(request.url, headers))
        body = b'{"message": "answered by the test recorder"}'
        return AWSResponse(
            request.url,
            403,
            {"x-amzn-ErrorType": "AccessDeniedException", "Content-Type": "application/json"},
            _CannedBody(body),
        )

"""A loopback stand-in for the two AWS front doors the smoke check calls over HTTP.

AWS itself cannot run here, so this plays its part, named as such:
- SageMaker Runtime `POST /endpoints/{EndpointName}/invocations` forwards the body to a real
  Kokoro server's `POST /invocations` (the container contract), and turns a container error
  into SageMaker's `ModelError` (HTTP 424), as SageMaker does.
- AgentCore `POST /runtimes/{agentRuntimeArn}/invocations` forwards the payload to a real
  voice agent's `POST /invocations` and relays its SSE stream chunk by chunk.
- `fail_with(...)` makes a route answer AWS's error shape instead: HTTP status,
  `x-amzn-ErrorType: <Code>:http://internal.amazon.com/coral/com.amazon.coral.service/`,
  `x-amzn-RequestId`, and a JSON body `{"message": ...}`, which is what the AWS services
  send (e.g. the raw 403 in aws/amazon-sagemaker-examples#290) and what botocore parses.

The boto3 clients reach it through the SDK's standard per-service endpoint variables
(AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME, AWS_ENDPOINT_URL_BEDROCK_AGENTCORE); every request is
recorded with its Host, path and SigV4 Authorization header.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

ACCOUNT = "123456789012"
CORAL = "http://internal.amazon.com/coral/com.amazon.coral.service/"


@dataclass(frozen=True)
class Recorded:
    route: str  # "invoke" or "agent"
    host: str
    raw_path: str
    authorization: str
    body: bytes


@dataclass(frozen=True)
class CannedError:
    status: int
    code: str
    message: str


CUSTOM_ATTRIBUTES = "X-Amzn-SageMaker-Custom-Attributes"


def aws_error(status: int, code: str, message: str) -> Response:
    return Response(
        json.dumps({"message": message}),
        status_code=status,
        media_type="application/json",
        headers={"x-amzn-ErrorType": f"{code}:{CORAL}", "x-amzn-RequestId": str(uuid.uuid4())},
    )


def model_error(status: int, container_body: str, endpoint: str, region: str) -> Response:
    """SageMaker's answer when the container itself answered 4xx/5xx."""
    kind = "client" if status < 500 else "server"
    logs = (
        f"https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}"
        f"#logEventViewer:group=/aws/sagemaker/Endpoints/{endpoint}"
    )
    message = (
        f'Received {kind} error ({status}) from primary with message "{container_body}". '
        f"See {logs} in account {ACCOUNT} for more information."
    )
    body = {
        "ErrorCode": f"{kind.upper()}_ERROR_FROM_MODEL",
        "LogStreamArn": f"arn:aws:logs:{region}:{ACCOUNT}:log-group:/aws/sagemaker/Endpoints/"
        f"{endpoint}",
        "Message": message,
        "OriginalMessage": container_body,
        "OriginalStatusCode": status,
    }
    return Response(
        json.dumps(body),
        status_code=424,
        media_type="application/json",
        headers={"x-amzn-ErrorType": f"ModelError:{CORAL}", "x-amzn-RequestId": "r"},
    )


class AwsFront:
    def __init__(
        self, kokoro_url: str | None, agent_url: str | None, region: str = "us-east-1"
    ) -> None:
        self.kokoro_url = kokoro_url
        self.agent_url = agent_url
        self.region = region
        self.requests: list[Recorded] = []
        self._canned: dict[str, CannedError] = {}
        self.app = Starlette(
            routes=[
                Route("/endpoints/{name}/invocations", self._invoke, methods=["POST"]),
                Route("/runtimes/{arn:path}/invocations", self._agent, methods=["POST"]),
            ]
        )

    def fail_with(self, route: str, status: int, code: str, message: str) -> None:
        self._canned[route] = CannedError(status, code, message)

    def reset(self) -> None:
        self._canned.clear()
        self.requests.clear()

    async def _record(self, route: str, request: Request) -> Recorded:
        recorded = Recorded(
            route=route,
            host=request.headers.get("host", ""),
            raw_path=request.scope["raw_path"].decode(),
            authorization=request.headers.get("authorization", ""),
            body=await request.body(),
        )
        self.requests.append(recorded)
        return recorded

    async def _invoke(self, request: Request) -> Response:
        recorded = await self._record("invoke", request)
        if canned := self._canned.get("invoke"):
            return aws_error(canned.status, canned.code, canned.message)
        assert self.kokoro_url, "no Kokoro server behind this front"
        async with httpx.AsyncClient(timeout=120) as client:
            answer = await client.post(
                f"{self.kokoro_url}/invocations",
                content=recorded.body,
                headers={"content-type": request.headers.get("content-type", "")},
            )
        name = request.path_params["name"]
        if answer.status_code >= 400:
            return model_error(answer.status_code, answer.text, name, self.region)
        headers = {"x-Amzn-Invoked-Production-Variant": "AllTraffic"}
        # SageMaker forwards the container's custom attributes verbatim (InvokeEndpoint
        # response `CustomAttributes`, header X-Amzn-SageMaker-Custom-Attributes).
        if attributes := answer.headers.get(CUSTOM_ATTRIBUTES):
            headers[CUSTOM_ATTRIBUTES] = attributes
        return Response(
            answer.content, media_type=answer.headers.get("content-type"), headers=headers
        )

    async def _agent(self, request: Request) -> Response:
        recorded = await self._record("agent", request)
        if canned := self._canned.get("agent"):
            return aws_error(canned.status, canned.code, canned.message)
        assert self.agent_url, "no agent behind this front"
        client = httpx.AsyncClient(timeout=120)
        upstream = await client.send(
            client.build_request(
                "POST",
                f"{self.agent_url}/invocations",
                content=recorded.body,
                headers={"content-type": "application/json"},
            ),
            stream=True,
        )

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    yield chunk
            finally:
                await upstream.aclose()
                await client.aclose()

        return StreamingResponse(
            relay(), status_code=upstream.status_code, media_type="text/event-stream"
        )


def signed_with(recorded: Recorded) -> dict[str, Any]:
    """The SigV4 credential scope of a recorded request: key id, region, service."""
    credential = recorded.authorization.split("Credential=", 1)[1].split(",", 1)[0]
    key_id, _date, region, service, _terminator = credential.split("/")
    return {"key_id": key_id, "region": region, "service": service}

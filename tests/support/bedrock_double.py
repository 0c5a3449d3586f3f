"""BedrockDouble: a test double of Amazon Bedrock's ConverseStream API on 127.0.0.1 (Bedrock
cannot be reached from here).

The agent's real `StrandsBedrockSource`, built exactly as production builds it (a Strands
`BedrockModel` and its boto3 client), is pointed at the double the SDK's standard way,
`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`. The double records every request as it arrived (path,
SigV4 `Authorization` header, JSON body) and answers with the next scripted answer as an AWS
event stream (`application/vnd.amazon.eventstream`, chunked, a pause between deltas), which
botocore decodes exactly as it would Bedrock's.
"""

from __future__ import annotations

import json
import struct
import threading
import time
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.http_thread import HttpThread
from voice_agent.llm import replay_tokens


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    authorization: str
    body: dict[str, Any]


def event_message(event_type: str, payload: dict[str, Any]) -> bytes:
    """One AWS event stream message: prelude, headers, JSON payload, CRC32s."""
    headers = b"".join(
        _string_header(name, value)
        for name, value in (
            (":event-type", event_type),
            (":content-type", "application/json"),
            (":message-type", "event"),
        )
    )
    body = json.dumps(payload).encode()
    prelude = struct.pack(">II", 12 + len(headers) + len(body) + 4, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def _string_header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack(">B", len(n)) + n + b"\x07" + struct.pack(">H", len(v)) + v


def converse_stream_events(answer: str) -> list[bytes]:
    deltas = [
        event_message("contentBlockDelta", {"delta": {"text": token}, "contentBlockIndex": 0})
        for token in replay_tokens(answer)
    ]
    return [
        event_message("messageStart", {"role": "assistant"}),
        *deltas,
        event_message("contentBlockStop", {"contentBlockIndex": 0}),
        event_message("messageStop", {"stopReason": "end_turn"}),
        event_message(
            "metadata",
            {
                "usage": {"inputTokens": 1, "outputTokens": len(deltas), "totalTokens": 1},
                "metrics": {"latencyMs": 1},
            },
        ),
    ]


class BedrockDouble:
    """Answers ConverseStream, one token every `1 / tokens_per_s` seconds: with `answers` in
    turn (the last one again when they run out), or, given a dict, with the answer to the
    request's last user message."""

    def __init__(self, answers: list[str] | dict[str, str], tokens_per_s: float = 200.0) -> None:
        self.answers = answers
        self.delay_s = 1.0 / tokens_per_s
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._host = HttpThread(self._handler())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._host.port}"

    def __enter__(self) -> BedrockDouble:
        self._host.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._host.stop()

    def _next_answer(self, request: RecordedRequest) -> str:
        with self._lock:
            self.requests.append(request)
            if isinstance(self.answers, dict):
                return self.answers[last_user_text(request.body)]
            return self.answers[min(len(self.requests), len(self.answers)) - 1]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                auth = self.headers.get("Authorization", "")
                answer = double._next_answer(RecordedRequest(self.path, auth, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.amazon.eventstream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for message in converse_stream_events(answer):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(message), message))
                        self.wfile.flush()
                        time.sleep(double.delay_s)
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the agent stopped reading: an interrupted answer

        return Handler


def last_user_text(body: dict[str, Any]) -> str:
    """The text of a ConverseStream request's last (user) message."""
    return str(body["messages"][-1]["content"][0]["text"])

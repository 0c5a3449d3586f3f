"""JSON-line logs, and the one record each answered turn leaves (`voice_agent.turn`).

AgentCore sends the runtime's stdout to CloudWatch Logs, one event per line, in
`/aws/bedrock-agentcore/runtimes/<runtime id>-DEFAULT`; the CDK app turns the turn records
into metrics there (stacks/log_metrics.py, docs/monitoring.md). Every logger writes the
same shape as the TTS server: `{"ts", "level", "logger", "msg", ...fields}`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from bedrock_agentcore.runtime.context import BedrockAgentCoreContext

from .events import AgentEvent, AudioEvent, EventType

turn_log = logging.getLogger("voice_agent.turn")
# The AgentCore SDK gives its logger a handler of its own (JSON of another shape, on
# stderr) unless one is there already: it gets ours instead.
SDK_LOGGER = "bedrock_agentcore.app"


class JsonLineFormatter(logging.Formatter):
    """One JSON object per record; `extra={"fields": {...}}` adds keys."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **_agentcore_ids(),
            **_record_fields(record),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def _agentcore_ids() -> dict[str, str]:
    """The ids AgentCore gives the request being served, as its SDK's own formatter adds them."""
    ids = {
        "request_id": BedrockAgentCoreContext.get_request_id(),
        "session_id": BedrockAgentCoreContext.get_session_id(),
    }
    return {key: value for key, value in ids.items() if value}


def _record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """What `extra={"fields": {...}}` attached to the record (nothing when it is not a dict)."""
    fields = getattr(record, "fields", None)
    return fields if isinstance(fields, dict) else {}


def configure_logging(stream: TextIO | None = None, level: int = logging.INFO) -> None:
    """Every record as a JSON line on stdout: the agent's, uvicorn's and the SDK's."""
    handler = logging.StreamHandler(stream or sys.stdout)
    handler.setFormatter(JsonLineFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    sdk = logging.getLogger(SDK_LOGGER)
    sdk.handlers[:] = [handler]
    sdk.propagate = False


@dataclass
class TurnRecord:
    """What one turn's caller was sent, timed from the turn's start: the `turn end` record.

    Events count once they went out (`observe` is called when the consumer asks for the
    next one). `interrupted`: the answer ended before `done` or a fatal error (barge-in, or
    the caller went away); `error`: the code of the fatal error that ended it.
    """

    mode: str
    start: float = field(default_factory=time.perf_counter)
    first_text: float | None = None
    first_sound: float | None = None
    sentences: int = 0
    error: str | None = None
    finished: bool = False

    def observe(self, event: AgentEvent) -> None:
        now = time.perf_counter()
        if isinstance(event, AudioEvent):
            self.first_sound = self.first_sound or now
            return
        kind = event["type"]
        if kind == EventType.TEXT and self.first_text is None:
            self.first_text = now
        elif kind == EventType.SENTENCE:
            self.sentences += 1
        elif kind == EventType.DONE:
            self.finished = True
        elif kind == EventType.ERROR and event.get("fatal"):
            self.error = str(event.get("code"))
            self.finished = True

    def _ms(self, at: float | None) -> float | None:
        return None if at is None else round((at - self.start) * 1000, 1)

    def fields(self) -> dict[str, Any]:
        return {
            "first_text_ms": self._ms(self.first_text),
            "first_sound_ms": self._ms(self.first_sound),
            "interrupted": not self.finished,
            "sentences": self.sentences,
            "error": self.error,
            "mode": self.mode,
        }

    def log(self) -> None:
        turn_log.info("turn end", extra={"fields": self.fields()})

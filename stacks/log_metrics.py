"""The metrics the stacks extract from the JSON log lines of the server and the agent.

Each is a CloudWatch Logs metric filter: a JSON filter pattern that selects one kind of
record, and the value it publishes (a field of the record, or 1 to count records). Why
filters and not embedded metric format: docs/monitoring.md. The patterns use only the JSON
syntax tests/support/log_filters.py evaluates, and tests/stacks/test_log_metrics.py runs the
synthesized filters over real log lines of the server and the agent. No CDK import here.
"""

from __future__ import annotations

from dataclasses import dataclass

SERVER_SESSION = "kokoro.session"
SERVER_APP = "kokoro.app"
SERVER_SYNTHESIS = "kokoro.synthesis"
AGENT_TURN = "voice_agent.turn"
TURN_END = "turn end"


@dataclass(frozen=True)
class LogMetric:
    name: str  # CloudWatch metric name, in the app's namespace
    pattern: str  # CloudWatch Logs JSON filter pattern
    value: str  # "$.<field>" publishes that field; "1" counts the matching records
    unit: str  # CloudWatch unit name
    meaning: str  # what it counts or times, in one line (docs/monitoring.md has the table)

    @property
    def counts(self) -> bool:
        return self.value == "1"


def record_pattern(logger: str, msg: str, *conditions: str) -> str:
    """`{ $.logger = "<logger>" && $.msg = "<msg>" && ... }`: one kind of record."""
    terms = [f'$.logger = "{logger}"', f'$.msg = "{msg}"', *conditions]
    return "{ " + " && ".join(terms) + " }"


def _timing(name: str, logger: str, msg: str, field: str, meaning: str) -> LogMetric:
    # `>= 0` rather than `= *`: the field is null when there was nothing to time, and a
    # numeric comparison matches numbers only, so a null is never published as a value.
    pattern = record_pattern(logger, msg, f"$.{field} >= 0")
    return LogMetric(name, pattern, f"$.{field}", "Milliseconds", meaning)


def _count(name: str, logger: str, msg: str, *conditions: str, meaning: str) -> LogMetric:
    return LogMetric(name, record_pattern(logger, msg, *conditions), "1", "Count", meaning)


# From the endpoint's log group, /aws/sagemaker/Endpoints/<endpoint>.
SERVER_FIRST_SOUND = _timing(
    "ServerFirstSoundMs",
    SERVER_SESSION,
    "session end",
    "first_sound_ms",
    "per TTS session, the server's time from the session's first text to its first sound",
)
SESSIONS_ENDED = _count("SessionsEnded", SERVER_SESSION, "session end", meaning="TTS sessions")
SESSIONS_STALLED = _count(
    "SessionsStalled",
    SERVER_SESSION,
    "session end",
    '$.ended = "stalled"',
    meaning="TTS sessions the server ended because the client stopped reading",
)
SESSIONS_REFUSED = _count(
    "SessionsRefused",
    SERVER_APP,
    "session refused",
    meaning="sessions and one-shot requests refused with `busy` (limit, overload, starting)",
)
SENTENCES_NOT_SPOKEN = _count(
    "SentencesNotSpoken",
    SERVER_SESSION,
    "sentence not spoken",
    meaning="sentences the server could not speak (reported to the client with their text)",
)
SENTENCES_PREEMPTED = _count(
    "SentencesPreempted",
    SERVER_SYNTHESIS,
    "sentence pre-empted",
    meaning="model calls stopped to let a more urgent sentence run first (then rerun)",
)
MODEL_RTF = LogMetric(
    "ModelRtf",
    record_pattern(SERVER_SESSION, "sentence sent", "$.rtf >= 0"),
    "$.rtf",
    "None",
    "per sentence, model seconds over audio seconds (below 1: faster than real time)",
)
SERVER_METRICS = (
    SERVER_FIRST_SOUND,
    SESSIONS_ENDED,
    SESSIONS_STALLED,
    SESSIONS_REFUSED,
    SENTENCES_NOT_SPOKEN,
    SENTENCES_PREEMPTED,
    MODEL_RTF,
)

# From the agent runtime's log group, /aws/bedrock-agentcore/runtimes/<runtime id>-DEFAULT.
AGENT_FIRST_SOUND = _timing(
    "AgentFirstSoundMs",
    AGENT_TURN,
    TURN_END,
    "first_sound_ms",
    "per turn, the agent's time from the caller's request to the first audio sent back",
)
AGENT_FIRST_TEXT = _timing(
    "AgentFirstTextMs",
    AGENT_TURN,
    TURN_END,
    "first_text_ms",
    "per turn, the agent's time from the caller's request to the LLM's first text sent back",
)
TURNS = _count("Turns", AGENT_TURN, TURN_END, meaning="answers the agent started")
TURNS_INTERRUPTED = _count(
    "TurnsInterrupted",
    AGENT_TURN,
    TURN_END,
    "$.interrupted IS TRUE",
    meaning="answers that ended before `done`: barge-in, or the caller went away",
)
AGENT_METRICS = (AGENT_FIRST_SOUND, AGENT_FIRST_TEXT, TURNS, TURNS_INTERRUPTED)

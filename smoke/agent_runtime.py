"""Check 3: one AgentCore runtime invocation (boto3 bedrock-agentcore InvokeAgentRuntime).

The call and the SSE reassembly are the agent's own caller (voice_agent.client), so this
check reads the runtime's stream exactly as the documented client does.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from smoke.diagnosis import Call, from_event, from_exception, no_audio, protocol
from smoke.result import CheckResult, failed
from voice_agent.client import InvocationResult, invoke_runtime

NAME = "agent-runtime"
PROMPT = "Say hello and tell me the time of day you like best, in two short sentences."


def agent_call(runtime_arn: str) -> Call:
    return Call(
        "InvokeAgentRuntime", "bedrock-agentcore:InvokeAgentRuntime", f"runtime {runtime_arn}"
    )


def _seen(result: InvocationResult) -> str:
    counts = Counter(result.order)
    return ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "no events"


def run_agent_check(
    agentcore: Any, runtime_arn: str, prompt: str, voice: str | None, timeout_s: float
) -> CheckResult:
    call = agent_call(runtime_arn)
    payload: dict[str, Any] = {"prompt": prompt, "mode": "stream", "format": "pcm"}
    if voice:
        payload["voice"] = voice
    try:
        result = invoke_runtime(runtime_arn, payload, client=agentcore)
    except Exception as exc:
        return failed(NAME, from_exception(exc, call, timeout_s))
    fatal = [e for e in result.errors if e.get("fatal", True)]
    if fatal:
        error = fatal[0]
        return failed(NAME, from_event(str(error.get("code")), str(error.get("message")), call))
    if not result.order:
        return failed(NAME, protocol(call, "the runtime answered without a single SSE event"))
    if not result.audio:
        return failed(NAME, no_audio(call, _seen(result)))
    if not result.metrics:
        return failed(NAME, protocol(call, f"the stream ended without `done` ({_seen(result)})"))
    metrics = result.metrics
    return CheckResult(
        NAME,
        first_audio_ms=result.first_audio_ms,
        total_ms=result.total_ms,
        detail=(
            f"{len(result.audio)} sentences, {metrics.get('audio_seconds')} s of audio; "
            f"the agent measured first text {metrics.get('time_to_first_text_ms')} ms, "
            f"first audio {metrics.get('time_to_first_audio_ms')} ms"
        ),
    )

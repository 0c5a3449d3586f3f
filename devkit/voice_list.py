"""The voices a deployment offers, asked of the voice agent (`devkit.caller --list-voices`).

The agent answers the payload `{"list": "voices"}` with its TTS server's list: JSON on
POST /invocations (a local agent, or a deployed runtime through InvokeAgentRuntime), one
`voices` event on /ws. Its `default` is the voice an invocation without `voice` gets. A
refusal (`tts_unavailable`, `voice_paused`) comes back as the agent's usual error.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
from kokoro_stream.region import region_from_env
from websockets.asyncio.client import connect

LIST_VOICES = {"list": "voices"}


class VoiceListRefused(RuntimeError):
    """The agent answered the list with an error (its code and message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def voice_list(answer: Any) -> dict[str, Any]:
    """The list out of the agent's answer (JSON body or `voices` event), or its refusal."""
    if not isinstance(answer, dict):
        raise VoiceListRefused("bad_answer", f"the agent answered {str(answer)[:120]!r}")
    if answer.get("type") == "error" or "voices" not in answer:
        code = str(answer.get("code") or "bad_answer")
        raise VoiceListRefused(code, str(answer.get("message") or json.dumps(answer)[:200]))
    return {k: v for k, v in answer.items() if k != "type"}


async def list_voices_http(base_url: str, timeout_s: float = 30.0) -> dict[str, Any]:
    url = f"{base_url.rstrip('/')}/invocations"
    async with httpx.AsyncClient(timeout=timeout_s) as client:
        response = await client.post(url, json=LIST_VOICES)
    try:
        answer = response.json()
    except ValueError:
        raise VoiceListRefused(
            f"http_{response.status_code}", response.text[:200] or "an empty answer"
        ) from None
    return voice_list(answer)


async def list_voices_ws(ws_url: str, timeout_s: float = 30.0) -> dict[str, Any]:
    async with connect(ws_url, open_timeout=timeout_s) as ws:
        await ws.send(json.dumps(LIST_VOICES))
        frame = await ws.recv()
    return voice_list(json.loads(frame))


def list_voices_runtime(
    runtime_arn: str, region: str | None = None, client: Any = None
) -> dict[str, Any]:
    """A deployed runtime's list through InvokeAgentRuntime (boto3 `bedrock-agentcore`)."""
    if client is None:
        import boto3

        client = boto3.client("bedrock-agentcore", region_name=region or region_from_env())
    response = client.invoke_agent_runtime(
        agentRuntimeArn=runtime_arn,
        runtimeSessionId=f"voice-agent-list-{uuid.uuid4()}",
        payload=json.dumps(LIST_VOICES).encode(),
        contentType="application/json",
        accept="application/json",
    )
    return voice_list(json.loads(response["response"].read()))


def format_voice_list(listed: dict[str, Any]) -> str:
    """One line per voice (name, language, gender, whether it is a user file), then the
    default voice and how to write a blend."""
    voices = listed.get("voices") or []
    width = max((len(str(v.get("name"))) for v in voices), default=4)
    lines = [
        f"{v.get('name')!s:<{width}}  {v.get('language') or '?':<6} {v.get('gender') or '':<7}"
        f"{'  user file' if v.get('user_file') else ''}".rstrip()
        for v in voices
    ]
    lines.append(f"{len(voices)} voices, default {listed.get('default')}")
    if listed.get("blend_syntax"):
        lines.append(
            f"blend: {listed['blend_syntax']} (up to {listed.get('max_blend')} voices),"
            " e.g. --voice 'af_bella:2+af_sky:1'"
        )
    return "\n".join(lines)

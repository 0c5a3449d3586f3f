"""The voice agent's caller CLI: invoke it, save the audio as WAV, print metrics.

    python -m devkit.caller --prompt "Where is my order?"               # local agent, SSE
    python -m devkit.caller --ws --prompt "..."                          # local agent, /ws
    python -m devkit.caller --runtime-arn arn:aws:bedrock-agentcore:...  # deployed runtime
    python -m devkit.caller --compare --runs 3                          # stream vs batch
    python -m devkit.caller --list-voices                               # the voices offered
    python -m devkit.caller --voice "af_bella:2+af_sky:1"               # a blend of two

A conversation: give --prompt once per turn. --captions shows each answer's words as a
real-time player would reach them; --interrupt-after-ms N interrupts the first answer after
N ms of playback (/ws: an `interrupt` message; SSE: the next request says so):

    python -m devkit.caller --ws --captions --interrupt-after-ms 2500 \\
        --prompt "Where is my order?" --prompt "Can you send it to my office?"

The audio goes to out/agent_answer.wav (out/ is git-ignored) unless --out says otherwise.
It runs from the repository's .venv, not from the agent image.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

from devkit.agent_client import (
    FILE_SUFFIXES,
    InvocationResult,
    compare_modes,
    compare_table,
    invoke_http,
    invoke_runtime,
    invoke_ws,
    print_result,
)
from devkit.agent_events import ws_url
from devkit.cli import exit_if_unreachable, parser
from devkit.paths import OUT_DIR
from devkit.talk import TalkOptions, converse
from devkit.voice_list import (
    VoiceListRefused,
    format_voice_list,
    list_voices_http,
    list_voices_runtime,
    list_voices_ws,
)

DEFAULT_PROMPT = "Where is my order?"


def request_fields(args: argparse.Namespace, mode: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"mode": mode, "format": args.format}
    if args.voice:
        fields["voice"] = args.voice
    return fields


async def run_one(
    args: argparse.Namespace, mode: str, prompt: str = DEFAULT_PROMPT
) -> InvocationResult:
    payload: dict[str, Any] = {"prompt": prompt, **request_fields(args, mode)}
    if args.session_id:
        payload["session_id"] = args.session_id
    if args.runtime_arn:
        return await asyncio.to_thread(
            invoke_runtime, args.runtime_arn, payload, args.region, args.runtime_session
        )
    if args.ws:
        return await invoke_ws(ws_url(args.url), payload)
    return await invoke_http(args.url, payload)


async def list_voices(args: argparse.Namespace) -> int:
    """The deployment's voices, as the agent lists them (its TTS server's, its default)."""
    try:
        if args.runtime_arn:
            listed = await asyncio.to_thread(list_voices_runtime, args.runtime_arn, args.region)
        elif args.ws:
            listed = await list_voices_ws(ws_url(args.url))
        else:
            listed = await list_voices_http(args.url)
    except VoiceListRefused as exc:
        print(f"error: the agent did not list its voices: {exc}", file=sys.stderr)
        return 1
    print(format_voice_list(listed))
    return 0


async def amain(args: argparse.Namespace) -> int:
    if args.list_voices:
        return await list_voices(args)
    if args.compare:
        prompt = args.prompt[0]
        results = await compare_modes(lambda mode: run_one(args, mode, prompt), args.runs)
        failed = [e for rs in results.values() for r in rs for e in r.errors]
        for e in failed:
            print(f"error {e.get('code')}: {e.get('message')}")
        source = results["stream"][0].metrics.get("text_source", "?")
        print(f"text source: {source}")
        print(compare_table(results))
        return 1 if failed else 0
    if args.talk:
        return await talk(args)
    ok = True
    for number, prompt in enumerate(args.prompt):
        if len(args.prompt) > 1:
            print(f"you> {prompt}")
        result = await run_one(args, args.mode, prompt)
        print_result(result)
        out = turn_path(args.out, number, len(args.prompt))
        if out and result.audio:
            out.parent.mkdir(parents=True, exist_ok=True)
            result.write_wav(out)
            print(f"  audio saved to {out}")
        ok = ok and result.ok
    return 0 if ok else 1


async def talk(args: argparse.Namespace) -> int:
    """Turns with captions and/or an interrupt, against a local agent (SSE or /ws)."""
    options = TalkOptions(
        url=args.url,
        ws=args.ws,
        session_id=args.session_id,
        interrupt_after_ms=args.interrupt_after_ms,
        captions=args.captions,
        request=request_fields(args, args.mode),
    )
    turns = await converse(args.prompt, options)
    for number, played in enumerate(turns):
        out = turn_path(args.out, number, len(turns))
        if out and played.result.audio:
            out.parent.mkdir(parents=True, exist_ok=True)
            played.result.write_wav(out)
            print(f"  audio of turn {number + 1} saved to {out}")
    fatal = [e for p in turns for e in p.result.errors if e.get("fatal", True)]
    unfinished = [p for p in turns if not p.result.metrics and p.stopped_at_ms is None]
    return 1 if fatal or unfinished else 0


def turn_path(out: str | None, number: int, turns: int) -> Path | None:
    """One WAV per turn: agent_answer.wav alone, agent_answer_1.wav... for a conversation."""
    if not out:
        return None
    path = Path(out)
    return path if turns == 1 else path.with_stem(f"{path.stem}_{number + 1}")


def build_parser() -> argparse.ArgumentParser:
    p = parser("python -m devkit.caller", __doc__)
    p.add_argument("--url", default="http://127.0.0.1:8080", help="local agent base URL")
    p.add_argument("--ws", action="store_true", help="use the /ws WebSocket instead of SSE")
    p.add_argument("--runtime-arn", help="invoke a deployed AgentCore runtime instead")
    p.add_argument(
        "--region", help="AWS region for --runtime-arn (default: AWS_REGION, AWS_DEFAULT_REGION)"
    )
    p.add_argument(
        "--prompt",
        action="append",
        help=f"the caller's words; repeat for a conversation (default: {DEFAULT_PROMPT!r})",
    )
    p.add_argument(
        "--session-id",
        help="name the conversation (payload session_id); a conversation over SSE gets one",
    )
    p.add_argument(
        "--captions", action="store_true", help="show each answer's words as they are played"
    )
    p.add_argument(
        "--interrupt-after-ms",
        type=float,
        metavar="N",
        help="interrupt the first answer after N ms of (simulated real-time) playback",
    )
    p.add_argument(
        "--mode",
        choices=["stream", "batch"],
        default="stream",
        help="stream: audio sentence by sentence as the text comes; batch: the whole answer",
    )
    p.add_argument(
        "--voice", help="a voice, or a blend such as 'af_bella:2+af_sky:1' (see --list-voices)"
    )
    p.add_argument(
        "--format",
        choices=["pcm", "wav", "mp3", "ulaw", "alaw", "opus"],
        default="pcm",
        help="the audio format the agent sends (default pcm)",
    )
    p.add_argument(
        "--out",
        help="audio file (default out/agent_answer.wav, .mp3 for mp3, .opus for opus)",
    )
    p.add_argument(
        "--list-voices",
        action="store_true",
        help="print the voices the agent's TTS offers (names, languages, user files) and exit",
    )
    p.add_argument("--compare", action="store_true", help="stream vs batch side by side")
    p.add_argument("--runs", type=int, default=3, help="runs per mode with --compare")
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    args.prompt = args.prompt or [DEFAULT_PROMPT]
    if args.out is None:
        args.out = str(OUT_DIR / f"agent_answer.{FILE_SUFFIXES.get(args.format, 'wav')}")
    played = args.captions or args.interrupt_after_ms is not None
    if args.interrupt_after_ms is not None and args.interrupt_after_ms < 0:
        p.error("--interrupt-after-ms must be >= 0")
    if played and (args.runtime_arn or args.compare):
        p.error("--captions and --interrupt-after-ms play a local agent's answers (--url)")
    if played and args.format != "pcm":
        p.error("--captions and --interrupt-after-ms need --format pcm (the player counts samples)")
    if args.compare and len(args.prompt) > 1:
        p.error("--compare takes one --prompt")
    many = len(args.prompt) > 1 or args.interrupt_after_ms is not None
    # A local conversation (or a played answer) goes through devkit.talk: over /ws on one
    # connection, over SSE one request per turn under one session_id.
    args.talk = not args.runtime_arn and (played or many)
    if args.talk and many and not args.session_id and not args.ws:
        args.session_id = f"caller-{uuid.uuid4().hex[:12]}"
    # A deployed runtime keys conversations by its session id: one for all turns.
    args.runtime_session = f"voice-agent-client-{uuid.uuid4()}"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    where = args.runtime_arn or (ws_url(args.url) if args.ws else args.url)
    return exit_if_unreachable(lambda: asyncio.run(amain(args)), f"the voice agent at {where}")


if __name__ == "__main__":
    sys.exit(main())

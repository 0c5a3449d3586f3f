"""After `cdk deploy`: one InvokeEndpoint, one bidirectional stream (two sentences and a
cancel) and one agent runtime invocation, each with its time to first audio, or a plain
diagnosis of what is wrong.

    python -m smoke                                   # the stacks named in cdk.json
    python -m smoke --region eu-central-1 --skip agent
    python -m smoke --endpoint-name kokoro-tts --runtime-arn arn:aws:bedrock-agentcore:...

Exit codes:
  0  every check that ran passed
  1  at least one check failed (its diagnosis is printed)
  2  cannot run: bad option, no region, no credentials, stack or output not found, AWS not
     reachable
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import InvalidStateError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from devkit.cli import exit_if_unreachable
from devkit.cli import parser as cli_parser
from smoke import agent_runtime, bidi_stream, invoke_endpoint
from smoke.aws import (
    Region,
    SetupError,
    make_client,
    make_session,
    require_credentials,
    resolve_region,
)
from smoke.endpoint_status import endpoint_state
from smoke.report import render
from smoke.result import CheckResult, failed
from smoke.targets import (
    ENDPOINT_OUTPUT,
    RUNTIME_OUTPUT,
    app_name_from_cdk_json,
    output_value,
    stack_names,
)

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_SETUP = 2

CHECKS = ("invoke", "stream", "agent")


def build_parser() -> argparse.ArgumentParser:
    parser = cli_parser("python -m smoke", __doc__)
    parser.add_argument("--endpoint-name", help=f"default: the TTS stack's {ENDPOINT_OUTPUT}")
    parser.add_argument("--runtime-arn", help=f"default: the agent stack's {RUNTIME_OUTPUT}")
    parser.add_argument("--app-name", help="app name for the stack names (default: cdk.json)")
    parser.add_argument("--app-dir", type=Path, default=Path("."), help="where cdk.json is")
    parser.add_argument(
        "--region", help="default: AWS_REGION, then AWS_DEFAULT_REGION, then the profile"
    )
    parser.add_argument("--profile", help="AWS named profile (default: the credential chain)")
    parser.add_argument("--voice", help="TTS voice (default: the deployed default voice)")
    parser.add_argument("--prompt", default=agent_runtime.PROMPT, help="prompt for the agent")
    parser.add_argument(
        "--skip", action="append", default=[], choices=CHECKS, help="skip a check (repeatable)"
    )
    parser.add_argument(
        "--timeout-s",
        type=float,
        default=30.0,
        help="longest silence a check accepts before it diagnoses no response (default 30)",
    )
    return parser


@dataclass(frozen=True)
class Plan:
    session: boto3.Session
    region: Region
    endpoint_name: str | None
    runtime_arn: str | None
    voice: str | None
    prompt: str
    timeout_s: float

    def client(self, service: str) -> Any:
        return make_client(self.session, service, self.region.name, self.timeout_s)


def build_plan(args: argparse.Namespace, env: dict[str, str]) -> Plan:
    """Session, region, credentials, then the targets: flags first, else stack outputs."""
    session = make_session(args.profile)
    region = resolve_region(session, args.region, env)
    require_credentials(session)
    endpoint_name, runtime_arn = args.endpoint_name, args.runtime_arn
    need_endpoint = bool({"invoke", "stream"} - set(args.skip)) and not endpoint_name
    need_runtime = "agent" not in args.skip and not runtime_arn
    if need_endpoint or need_runtime:
        names = stack_names(args.app_name or app_name_from_cdk_json(args.app_dir))
        cloudformation = make_client(session, "cloudformation", region.name, args.timeout_s)
        if need_endpoint:
            endpoint_name = output_value(
                cloudformation, names.tts, ENDPOINT_OUTPUT, "--endpoint-name"
            )
        if need_runtime:
            runtime_arn = output_value(cloudformation, names.agent, RUNTIME_OUTPUT, "--runtime-arn")
    return Plan(
        session=session,
        region=region,
        endpoint_name=endpoint_name,
        runtime_arn=runtime_arn,
        voice=args.voice,
        prompt=args.prompt,
        timeout_s=args.timeout_s,
    )


def sagemaker_transport(endpoint_name: str, region: str) -> Any:
    """The agent's production transport (imported here: it loads the HTTP/2 SDK)."""
    from kokoro_stream.sagemaker import SageMakerBidiTts

    return SageMakerBidiTts(endpoint_name, region=region)


def run_checks(
    plan: Plan,
    skip: set[str],
    transport_factory: Callable[[str, str], Any] = sagemaker_transport,
    progress: Callable[[str], None] = lambda line: None,
) -> list[CheckResult]:
    """The checks in order; an endpoint that is not InService fails both endpoint checks
    with that diagnosis instead of being invoked."""
    results: list[CheckResult] = []
    endpoint = plan.endpoint_name
    if endpoint and {"invoke", "stream"} - skip:
        state = endpoint_state(plan.client("sagemaker"), endpoint, plan.timeout_s)
        progress(f"endpoint {endpoint}: {state.status}" + (f"; {state.cost}" if state.cost else ""))
        if "invoke" not in skip:
            progress(f"{invoke_endpoint.NAME} ...")
            results.append(
                failed(invoke_endpoint.NAME, state.problem)
                if state.problem
                else invoke_endpoint.run_invoke_check(
                    plan.client("sagemaker-runtime"), endpoint, plan.voice, plan.timeout_s
                )
            )
        if "stream" not in skip:
            progress(f"{bidi_stream.NAME} ...")
            results.append(
                failed(bidi_stream.NAME, state.problem)
                if state.problem
                else _run_stream(plan, endpoint, transport_factory)
            )
    if plan.runtime_arn and "agent" not in skip:
        progress(f"{agent_runtime.NAME} ...")
        client = plan.client("bedrock-agentcore")
        results.append(
            agent_runtime.run_agent_check(
                client, plan.runtime_arn, plan.prompt, plan.voice, plan.timeout_s
            )
        )
    return results


def _run_stream(
    plan: Plan, endpoint: str, transport_factory: Callable[[str, str], Any]
) -> CheckResult:
    transport = transport_factory(endpoint, plan.region.name)
    return asyncio.run(
        bidi_stream.run_stream_check(transport, endpoint, plan.voice, plan.timeout_s)
    )


def quiet_cancelled_crt_connects() -> None:
    """awscrt sets the outcome of a connect future the SDK already cancelled (after a stream
    that never answered), and Python prints that as a traceback; the diagnosis says it all."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        trace = unraisable.exc_traceback
        from_crt = trace is not None and "awscrt" in trace.tb_frame.f_code.co_filename
        if not (from_crt and isinstance(unraisable.exc_value, InvalidStateError)):
            previous(unraisable)

    sys.unraisablehook = hook


class OneLineFormatter(logging.Formatter):
    """`LEVEL logger: message`, without the traceback a record may carry: the transport's
    messages already name each cause in the chain, and the diagnosis says what to do."""

    def formatException(self, ei: Any) -> str:
        return ""

    def formatStack(self, stack_info: str) -> str:
        return ""


def configure_logging() -> None:
    """For the `python -m smoke` process: warnings and errors of the libraries a check drives
    (the agent's transport, the SDKs) go to stderr as one line each, next to the progress
    lines; without it, Python's last-resort handler prints them with their full traceback."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.timeout_s <= 0:
        parser.error("--timeout-s must be > 0")
    if set(args.skip) == set(CHECKS):
        parser.error("every check is skipped: nothing to do")
    if args.profile:
        # The stream's transport builds its own botocore session: it reads AWS_PROFILE.
        os.environ["AWS_PROFILE"] = args.profile
    quiet_cancelled_crt_connects()
    # A check diagnoses what it reaches; AWS not reachable at all before any check: one line.
    return exit_if_unreachable(lambda: _run(args), "AWS")


def _run(args: argparse.Namespace) -> int:
    try:
        plan = build_plan(args, dict(os.environ))
        _stderr(f"region {plan.region.name} (from {plan.region.source})")
        results = run_checks(plan, set(args.skip), progress=_stderr)
    except SetupError as exc:
        print(render([], exc.diagnosis))
        return EXIT_SETUP
    except KeyboardInterrupt:
        _stderr("interrupted")
        return 130
    print(render(results))
    return EXIT_PASSED if all(r.ok for r in results) else EXIT_FAILED

"""`python -m smoke` as a user runs it after `cdk deploy`: targets from the stacks' outputs
(moto server), the three checks against the real Kokoro server and agent behind the AWS
front-door stand-in, the printed report and the exit codes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from kokoro_stream.websocket import WebSocketTts

from devkit.processes import free_port, run_module
from smoke.cli import EXIT_FAILED, EXIT_PASSED, EXIT_SETUP, build_parser, build_plan, main
from smoke.cli import run_checks as run_all_checks
from tests.support.aws_front import AwsFront
from tests.support.listeners import SilentListener
from tests.support.servers import ThreadedServer
from tests.support.smoke_world import ENDPOINT, KEY_ID, REGION, RUNTIME_ARN, Deployed, route_env

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.model


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no AWS settings of whoever runs the tests, an empty HOME, and
    no instance metadata lookups (on a CI runner inside AWS they would find real roles)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(home),
        AWS_EC2_METADATA_DISABLED="true",
        **extra,
    )
    return env


def signed_in_env(
    home: Path, routes: dict[str, str], region_var: str = "AWS_REGION"
) -> dict[str, str]:
    """user_env with the test account's keys, the region in `region_var` and the AWS
    endpoints routed to the stand-ins (route_env)."""
    keys = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": "fake"}
    return user_env(home, **{region_var: REGION}, **keys, **routes)


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_module("smoke", ["--app-dir", str(ROOT), *args], env)


def row(stdout: str, check: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(check))


@pytest.mark.replayable
def test_after_deploy_with_only_aws_region_set(
    deployed: Deployed, front: AwsFront, front_url: str, tmp_path: Path
) -> None:
    """The stream's port never answers (what a client on 443 instead of 8443 meets): the other
    two checks pass with their times, the stream fails with that diagnosis, exit code 1."""
    deployed.everything()
    with SilentListener() as silent:
        env = signed_in_env(
            tmp_path, route_env(deployed.moto_url, front_url, f"https://127.0.0.1:{silent.port}")
        )
        done = run_cli(env, "--timeout-s", "15")  # room for CPU synthesis on a busy machine
    assert done.returncode == EXIT_FAILED, done.stdout + done.stderr
    assert "region us-east-1 (from AWS_REGION)" in done.stderr
    assert "Traceback" not in done.stderr  # diagnoses, not stack traces
    assert f"endpoint {ENDPOINT}: InService" in done.stderr
    for check in ("invoke-endpoint", "agent-runtime"):
        assert row(done.stdout, check).split()[1:4:2] == ["PASS", "ms"], done.stdout
    assert row(done.stdout, "bidi-stream").split()[1] == "FAIL"
    assert "wrong port or no response" in done.stdout and "port 8443" in done.stdout
    assert "2 of 3 checks passed" in done.stdout
    # The deployed voice's figures, from what the container reported (here the CPU stand-in).
    assert row(done.stdout, "provider") == (
        "provider         CPUExecutionProvider  <- NOT the GPU: synthesis runs on the CPU"
    )
    # The stream is the check that reads the server's own synthesis times; it failed here.
    assert row(done.stdout, "real-time factor") == "real-time factor not measured"
    ttfa = row(done.stdout, "TTFA").removeprefix("TTFA").strip().split("; ")
    assert [t.split()[0] for t in ttfa] == ["invoke-endpoint", "agent-runtime"]
    # The endpoint name and runtime ARN came from the stack outputs, not from flags.
    assert [r.route for r in front.requests] == ["invoke", "agent"]
    assert front.requests[1].raw_path.endswith(
        "runtime%2Fkokoro_voice_agent-Ab12Cd34Ef/invocations"
    )


def test_a_stream_cut_short_prints_its_diagnosis_not_a_traceback(
    deployed: Deployed, tmp_path: Path
) -> None:
    """Giving up on a stream before its TLS handshake ends makes awscrt complete a future the
    SDK already cancelled; the user sees the diagnosis, not Python's traceback of that.
    With an 8 s deadline, awscrt's own 10 s TLS timeout fires while the check is closing."""
    deployed.endpoint()
    with SilentListener() as silent:
        env = signed_in_env(
            tmp_path, route_env(deployed.moto_url, stream_url=f"https://127.0.0.1:{silent.port}")
        )
        args = ("--endpoint-name", ENDPOINT, "--skip", "invoke", "--skip", "agent")
        done = run_cli(env, *args, "--timeout-s", "8")
    assert done.returncode == EXIT_FAILED
    assert "wrong port or no response" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr


@pytest.mark.replayable
def test_exit_code_zero_when_every_check_that_ran_passed(
    deployed: Deployed, front: AwsFront, front_url: str, tmp_path: Path
) -> None:
    deployed.everything()
    env = signed_in_env(
        tmp_path, route_env(deployed.moto_url, front_url), region_var="AWS_DEFAULT_REGION"
    )
    done = run_cli(env, "--skip", "stream")
    assert done.returncode == EXIT_PASSED, done.stdout + done.stderr
    assert "2 of 2 checks passed" in done.stdout
    assert "region us-east-1 (from AWS_DEFAULT_REGION)" in done.stderr


def test_no_credentials_with_an_empty_home(tmp_path: Path) -> None:
    done = run_cli(user_env(tmp_path, AWS_REGION=REGION))
    assert done.returncode == EXIT_SETUP
    assert "cannot run the smoke check: no credentials" in done.stdout
    assert "aws sso login" in done.stdout


def test_aws_not_reachable_is_a_diagnosis_not_a_traceback(tmp_path: Path) -> None:
    """Every AWS endpoint on a closed loopback port: smoke says it cannot run, and why, before
    any check (exit 2), in its own diagnosis form."""
    closed = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    done = run_cli(signed_in_env(tmp_path, closed), "--timeout-s", "3")
    assert done.returncode == EXIT_SETUP
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout.startswith("cannot run the smoke check: unreachable")
    assert "could not connect" in done.stdout


def test_stacks_not_deployed_say_which_and_how_to_go_on(
    deployed: Deployed, front_url: str, tmp_path: Path
) -> None:
    env = signed_in_env(tmp_path, route_env(deployed.moto_url, front_url))
    done = run_cli(env)
    assert done.returncode == EXIT_SETUP
    assert "cannot run the smoke check: not found" in done.stdout
    assert "stack KokoroVoice-Tts not found" in done.stdout


@pytest.mark.parametrize(
    ("status", "reason", "advice"),
    [
        ("Creating", None, "aws sagemaker wait endpoint-in-service --endpoint-name"),
        ("Failed", "The primary container did not pass the ping health check.", "ping health"),
    ],
)
def test_endpoint_not_in_service_fails_both_endpoint_checks(
    deployed: Deployed,
    front: AwsFront,
    front_url: str,
    aws_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    status: str,
    reason: str | None,
    advice: str,
) -> None:
    deployed.stack("KokoroVoice-Tts", {"EndpointName": ENDPOINT})
    deployed.endpoint(status=status, failure_reason=reason)
    for name, value in route_env(deployed.moto_url, front_url).items():
        aws_env.setenv(name, value)
    code = main(["--app-dir", str(ROOT), "--region", REGION, "--skip", "agent"])
    out = capsys.readouterr().out
    assert code == EXIT_FAILED
    for check in ("invoke-endpoint", "bidi-stream"):
        assert row(out, check).split()[1] == "FAIL" and "endpoint not InService" in row(out, check)
    assert f"endpoint {ENDPOINT} is {status}, not InService" in out and advice in out
    assert front.requests == []  # a dead endpoint is not invoked


def test_endpoint_missing_is_not_found(
    deployed: Deployed,
    front_url: str,
    aws_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    deployed.stack("KokoroVoice-Tts", {"EndpointName": ENDPOINT})
    for name, value in route_env(deployed.moto_url, front_url).items():
        aws_env.setenv(name, value)
    code = main(["--app-dir", str(ROOT), "--region", REGION, "--skip", "agent"])
    out = capsys.readouterr().out
    assert code == EXIT_FAILED
    assert row(out, "invoke-endpoint").split()[1:3] == ["FAIL", "-"]
    assert f"endpoint {ENDPOINT} not found" in out


@pytest.mark.replayable
def test_all_three_checks_pass_against_the_real_servers(
    deployed: Deployed,
    front: AwsFront,
    front_url: str,
    server: ThreadedServer,
    aws_env: pytest.MonkeyPatch,
) -> None:
    """The whole run in-process, the stream through the WebSocket transport to the real
    Kokoro server (its payload path; how SageMaker is reached is tested in
    test_smoke_bidi_stream.py)."""
    deployed.everything()
    for name, value in route_env(deployed.moto_url, front_url).items():
        aws_env.setenv(name, value)
    args = build_parser().parse_args(["--app-dir", str(ROOT), "--region", REGION])
    plan = build_plan(args, dict(os.environ))
    assert (plan.endpoint_name, plan.runtime_arn) == (ENDPOINT, RUNTIME_ARN)
    results = run_all_checks(plan, set(), transport_factory=lambda _n, _r: WebSocketTts(server.ws))
    assert [(r.name, r.ok) for r in results] == [
        ("invoke-endpoint", True),
        ("bidi-stream", True),
        ("agent-runtime", True),
    ], [r.diagnosis for r in results]
    assert all(r.first_audio_ms for r in results)

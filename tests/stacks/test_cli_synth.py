"""The CDK CLI as `make synth`/`make deploy` run it: the account and region set the way the CLI
sets them from credentials (here named, as `make synth ACCOUNT=... REGION=...` does, since
there are none), no Docker engine. One CLI run; the other regions synthesize in process
(tests/stacks/conftest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.synth
REPO = Path(__file__).resolve().parents[2]


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CDK_"))}
    env.update(
        {
            # Nowhere to find credentials or a Docker daemon.
            "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
            "AWS_EC2_METADATA_DISABLED": "true",
            "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock",
            "HOME": str(tmp_path),
            "PATH": f"{REPO / '.venv' / 'bin'}:{env.get('PATH', '')}",
            "CDK_DISABLE_VERSION_CHECK": "1",
            "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        }
    )
    return env


def test_npx_cdk_synth_as_deploy_without_credentials_or_docker(tmp_path: Path) -> None:
    outdir = tmp_path / "cdk.out"
    makefile = (REPO / "Makefile").read_text()
    assert "KOKORO_SYNTH_AS_DEPLOY=1" in makefile and "CDK_DEFAULT_ACCOUNT=$(ACCOUNT)" in makefile
    # What the Makefile's CDK_ENV sets for `make synth ACCOUNT=123456789012 REGION=eu-central-1`.
    result = _synth_as_deploy(
        tmp_path, "eu-central-1", cdk_env={"CDK_DEFAULT_REGION": "eu-central-1"}
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    manifest = json.loads((outdir / "manifest.json").read_text())
    stacks = {
        k for k, v in manifest["artifacts"].items() if v["type"] == "aws:cloudformation:stack"
    }
    assert stacks == {"KokoroVoice-Tts", "KokoroVoice-Agent"}
    for stack in stacks:
        template = json.loads((outdir / f"{stack}.template.json").read_text())
        assert template["Resources"]
        assert manifest["artifacts"][stack]["environment"] == "aws://123456789012/eu-central-1"
    agent = (outdir / "KokoroVoice-Agent.template.json").read_text()
    assert "eu.anthropic.claude-haiku-4-5" in agent  # "auto" followed the region


def _synth_as_deploy(
    tmp_path: Path, region: str, *args: str, cdk_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`npx cdk synth` as `make synth` runs it, the region in AWS_REGION (where the CLI finds
    it) and `cdk_env` set as the Makefile may set it; the assembly goes to tmp_path/cdk.out."""
    npx = shutil.which("npx")
    assert npx, "npx (Node.js) is required for the CDK CLI; run `make setup`"
    env = _clean_env(tmp_path)
    env.update(
        {"KOKORO_SYNTH_AS_DEPLOY": "1", "CDK_DEFAULT_ACCOUNT": "123456789012", "AWS_REGION": region}
    )
    env.update(cdk_env or {})
    command = [npx, "--no-install", "cdk", "synth", "--quiet", "--no-notices", *args]
    return subprocess.run(
        [*command, "-o", str(tmp_path / "cdk.out")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def _app_lines(stderr: str) -> list[str]:
    """What the app printed: stderr without the CLI's own and npm's lines."""
    return [
        line
        for line in stderr.splitlines()
        if line.strip() and not line.startswith(("npm notice", ".venv/bin/python app.py:"))
    ]


@pytest.mark.parametrize(
    ("region", "args", "message"),
    [
        (
            "us-esat-1",
            (),
            "kokoro-voice: the deploy region 'us-esat-1' (CDK_DEFAULT_REGION, from AWS_REGION, "
            "your profile or `make synth REGION=...`) is not an AWS region: did you mean "
            "us-east-1?",
        ),
        ("eu-west-1", ("-c", "max_instances=lots"), "kokoro-voice: context 'max_instances' must"),
        ("eu-west-1", ("-c", "alarm_email=ops"), "kokoro-voice: context 'alarm_email' must be"),
    ],
)
def test_a_refused_configuration_is_one_line_not_a_traceback(
    tmp_path: Path, region: str, args: tuple[str, ...], message: str
) -> None:
    result = _synth_as_deploy(tmp_path, region, *args)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    (line,) = _app_lines(result.stderr)
    assert line.startswith(message), line


def test_synth_as_deploy_without_an_account_says_how_to_get_one(tmp_path: Path) -> None:
    from stacks.app_builder import DeployEnvironmentError, build_app

    saved = {k: os.environ.pop(k) for k in ("CDK_DEFAULT_ACCOUNT",) if k in os.environ}
    os.environ["KOKORO_SYNTH_AS_DEPLOY"] = "1"
    try:
        with pytest.raises(DeployEnvironmentError, match=r"no account.*ACCOUNT=123456789012"):
            build_app(outdir=str(tmp_path))
    finally:
        os.environ.pop("KOKORO_SYNTH_AS_DEPLOY")
        os.environ.update(saved)

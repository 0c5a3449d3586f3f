"""`npx cdk synth` as users run it: no AWS credentials, no Docker engine."""

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


def test_npx_cdk_synth_without_credentials_or_docker(tmp_path: Path) -> None:
    npx = shutil.which("npx")
    assert npx, "npx (Node.js) is required for the CDK CLI; run `make setup`"
    outdir = tmp_path / "cdk.out"
    result = subprocess.run(
        [npx, "--no-install", "cdk", "synth", "--quiet", "--no-notices", "-o", str(outdir)],
        cwd=REPO,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
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

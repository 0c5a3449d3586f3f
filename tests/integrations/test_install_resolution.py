"""Proof as users install: each integration resolves together with its framework's AWS
extras in a fresh resolution (uv pip compile for Python 3.12, the index as users see it; no
environment of this repository involved). A conflict fails the test. The same check on the
pins this package used to carry shows it can fail.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pip resolves each package beside its framework from the index

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).parent / "uv"
CLIENT = f"kokoro-stream @ {(ROOT / 'clients' / 'kokoro_stream').as_uri()}"
PIPECAT = f"pipecat-kokoro-sagemaker @ {(ROOT / 'integrations' / 'pipecat').as_uri()}"
LIVEKIT = f"livekit-plugins-kokoro-sagemaker @ {(ROOT / 'integrations' / 'livekit').as_uri()}"


def compile_(
    tmp_path: Path, *requirements: str, lowest: bool = False
) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "requirements.in"
    spec.write_text("\n".join(requirements) + "\n")
    command = [str(UV), "pip", "compile", "--quiet", "--python-version", "3.12", "--no-header"]
    if lowest:
        command += ["--resolution", "lowest-direct"]
    return subprocess.run(
        [*command, str(spec)], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )


def pinned(lock: str, name: str) -> str:
    match = re.search(rf"^{re.escape(name)}==(\S+)", lock, re.MULTILINE)
    assert match, f"{name} not in the resolution"
    return match.group(1)


@pytest.mark.parametrize("lowest", [False, True], ids=["newest", "lowest"])
def test_pipecat_service_resolves_beside_pipecat_aws_and_sagemaker(
    tmp_path: Path, lowest: bool
) -> None:
    result = compile_(tmp_path, CLIENT, PIPECAT, "pipecat-ai[aws,sagemaker]", lowest=lowest)
    assert result.returncode == 0, result.stderr
    # Pipecat's SageMaker extra decides the SDK (below 0.10); the client accepts it.
    sdk = pinned(result.stdout, "aws-sdk-sagemaker-runtime-http2")
    assert tuple(int(p) for p in sdk.split(".")[:2]) < (0, 10), sdk
    pinned(result.stdout, "aiobotocore")  # the aws extra came along


@pytest.mark.parametrize("lowest", [False, True], ids=["newest", "lowest"])
def test_livekit_plugin_resolves_beside_livekit_agents_aws(tmp_path: Path, lowest: bool) -> None:
    result = compile_(tmp_path, CLIENT, LIVEKIT, "livekit-agents[aws]", lowest=lowest)
    assert result.returncode == 0, result.stderr
    pinned(result.stdout, "livekit-plugins-aws")
    # livekit-plugins-aws needs smithy 0.11+, so the SDK is from the 0.11+ generation.
    sdk = pinned(result.stdout, "aws-sdk-sagemaker-runtime-http2")
    assert tuple(int(p) for p in sdk.split(".")[:2]) >= (0, 11), sdk


def test_the_old_pins_did_conflict_with_pipecat_sagemaker(tmp_path: Path) -> None:
    """Found by installing it: exact pins cannot be installed beside pipecat-ai[aws,sagemaker]."""
    result = compile_(
        tmp_path,
        "pipecat-ai[aws,sagemaker]==1.14.0",
        "aws-sdk-sagemaker-runtime-http2[awscrt]==0.12.0",
        "botocore==1.44.8",
    )
    assert result.returncode != 0
    assert "aws-sdk-sagemaker-runtime-http2" in result.stderr

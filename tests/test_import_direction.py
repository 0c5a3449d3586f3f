"""Dependencies point one way: kokoro_stream (the one protocol client) <- voice_agent,
pipecat_kokoro, the LiveKit plugin; kokoro_server, voice_agent <- devkit <- demo, bench, smoke,
playground, tests; stacks, devkit <- fetch_weights; kokoro_stream and the integrations import
nothing else of this repository, and the example bots only devkit.

The two runtime packages ship in separate images, so neither imports the other, nor any
tool package; devkit imports no consumer of its own. The smoke check (run from .venv after a
deploy) uses the agent's transports and devkit's agent caller, and talks to the server only
over the wire."""

from __future__ import annotations

import ast

import pytest

from devkit.paths import REPO_ROOT

PACKAGES = {
    "kokoro_server": REPO_ROOT / "container" / "kokoro_server",
    "voice_agent": REPO_ROOT / "agent" / "voice_agent",
    "devkit": REPO_ROOT / "devkit",
    "stacks": REPO_ROOT / "stacks",
    "teardown": REPO_ROOT / "teardown",
    "smoke": REPO_ROOT / "smoke",
    "playground": REPO_ROOT / "playground",
    "fetch_weights": REPO_ROOT / "fetch_weights",
    "bench": REPO_ROOT / "bench",
    "kokoro_stream": REPO_ROOT / "clients" / "kokoro_stream" / "src" / "kokoro_stream",
    "pipecat_kokoro": REPO_ROOT / "integrations" / "pipecat" / "src" / "pipecat_kokoro",
    "livekit_plugin": REPO_ROOT / "integrations" / "livekit" / "src",
    "examples": REPO_ROOT / "examples",
}
TOOLS = {
    "devkit",
    "demo",
    "bench",
    "smoke",
    "tests",
    "stacks",
    "teardown",
    "playground",
    "fetch_weights",
    "examples",
}
FORBIDDEN = {
    "kokoro_server": TOOLS | {"voice_agent"},
    "voice_agent": TOOLS | {"kokoro_server"},
    "devkit": TOOLS - {"devkit"},
    "stacks": TOOLS - {"stacks"} | {"kokoro_server", "voice_agent"},
    "teardown": TOOLS - {"teardown", "stacks"} | {"kokoro_server", "voice_agent"},
    "smoke": TOOLS - {"smoke", "devkit"} | {"kokoro_server"},
    # The page server and its local stack: devkit and the runtime packages, no other tool.
    "playground": TOOLS - {"playground", "devkit"},
    # `make weights`: the manifest and download code of stacks, the cache of devkit.
    "fetch_weights": TOOLS - {"fetch_weights", "stacks", "devkit"}
    | {"kokoro_server", "voice_agent"},
    "bench": TOOLS - {"bench", "devkit", "examples"},
    # Published on their own: kokoro_stream and their declared dependencies, nothing else.
    "kokoro_stream": TOOLS | {"kokoro_server", "voice_agent", "pipecat_kokoro"},
    "pipecat_kokoro": TOOLS | {"kokoro_server", "voice_agent"},
    "livekit_plugin": TOOLS | {"kokoro_server", "voice_agent", "pipecat_kokoro"},
    "examples": TOOLS - {"examples", "devkit"} | {"kokoro_server", "voice_agent"},
}


def imported_packages(source: str) -> set[str]:
    """Top-level names of every absolute import in the source, wherever it stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_imports_are_found_at_any_depth() -> None:
    source = "import os\ndef f():\n    from devkit.text import PARAGRAPH\n    import tests.x\n"
    assert imported_packages(source) == {"os", "devkit", "tests"}


@pytest.mark.parametrize("package", list(PACKAGES))
def test_package_imports_nothing_it_must_not(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO_ROOT)): sorted(bad)
        for path in PACKAGES[package].rglob("*.py")
        if (bad := imported_packages(path.read_text(encoding="utf-8")) & FORBIDDEN[package])
    }
    assert offenders == {}

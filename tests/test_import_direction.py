"""Dependencies point one way, and the picture in docs/architecture.md is the code's.

The allowed arrows are import-linter contracts in pyproject.toml (`lint-imports`, also in
`make lint`); this module runs them, checks that every package of the repository is named in
them (a new package cannot slip past the rules), that the module graph has no circle, and
that the diagram in docs/architecture.md is what `python -m devkit.import_graph` draws now.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from devkit import import_graph
from devkit.paths import REPO_ROOT

CONFIG = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LINTER = CONFIG["tool"]["importlinter"]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.fixture(scope="module")
def graph() -> import_graph.Graph:
    return import_graph.build_graph()  # parses every module once for the tests below


def test_the_import_contracts_hold() -> None:
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def _short(name: str) -> str:
    """The diagram names a namespace plugin by its own package (livekit.plugins.X -> X)."""
    return name.strip().rsplit(".", 1)[-1]


def test_every_package_is_under_the_contracts() -> None:
    found = set(import_graph.find_packages()) - {"app"}  # app.py: the CDK entry script
    roots = {_short(name) for name in LINTER["root_packages"]}
    assert found <= roots, found - roots
    layered = {
        _short(name)
        for contract in LINTER["contracts"]
        if contract["type"] == "layers"
        for layer in contract["layers"]
        for name in layer.split("|")
    }
    assert found <= layered, found - layered


def test_the_module_graph_has_no_circle(graph: import_graph.Graph) -> None:
    assert import_graph.module_cycles(graph) == []


def test_the_diagram_in_the_doc_is_the_code(graph: import_graph.Graph) -> None:
    doc = import_graph.DOC.read_text(encoding="utf-8")
    wanted = import_graph.block(graph)
    assert import_graph.current_block(doc) == wanted, "run `python -m devkit.import_graph`"


def test_imports_are_found_at_any_depth_and_relative_ones_resolved() -> None:
    source = (
        "import os\ndef f():\n    from devkit.text import PARAGRAPH\n    import tests.x\n"
        "from . import sibling\nfrom ..up import thing\n"
    )
    names = import_graph.imported_names(source, "pkg.sub.mod", is_package=False)
    assert {"os", "devkit.text.PARAGRAPH", "tests.x", "pkg.sub.sibling", "pkg.up.thing"} <= names


def test_imports_are_found_in_every_kind_of_nested_statement() -> None:
    source = """
if TYPE_CHECKING:
    import a_if
else:
    import a_else
class C:
    async def m(self):
        async with x:
            for i in y:
                while z:
                    import a_deep
try:
    import a_try
except ImportError:
    import a_except
else:
    import a_try_else
finally:
    import a_finally
match v:
    case 1:
        import a_case
lambda: __import__("not_a_statement")
"""
    names = import_graph.imported_names(source, "pkg.mod", is_package=False)
    nested = {"if", "else", "deep", "try", "except", "try_else", "finally", "case"}
    assert names == {f"a_{where}" for where in nested}


def test_a_circle_is_found(tmp_path: Path) -> None:
    for name, body in {
        "a": "from pkg import b\n",
        "b": "import pkg.c\n",
        "c": "import pkg.a\n",
    }.items():
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / "pkg" / f"{name}.py").write_text(body)
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg import a\n")  # re-exports: no circle
    graph = import_graph.build_graph(tmp_path)
    assert import_graph.module_cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert graph.package_edges() == set()


def test_every_installed_package_is_typed() -> None:
    untyped = [
        name
        for name, package in import_graph.find_packages().items()
        if package.root.is_dir()
        and name not in {"tests", "examples"}
        and not (package.root / "py.typed").is_file()
    ]
    assert untyped == []

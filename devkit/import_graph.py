"""The repository's packages and the direction of their imports, read from the code with `ast`.

    python -m devkit.import_graph           # rewrite the diagram in docs/architecture.md
    python -m devkit.import_graph --check   # exit 1 if the doc's diagram differs from the code

Packages are found, not listed: every directory with an `__init__.py` whose parent has none
(outside virtual environments, node_modules and build output), plus `examples/` (scripts) and
the CDK entry point `app.py`. Their group in the picture is where they live: `container/` and
`agent/` are the images, `integrations/` the published packages, `clients/` client libraries,
the rest the repository's tools. An arrow `A --> B` means some module of A imports B. The
tests may import anything and nothing imports them, so they are left out of the picture.

`tests/test_import_direction.py` fails when the doc is stale and when the module graph
has a circle; the allowed arrows themselves are import-linter contracts (pyproject.toml).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from devkit.paths import REPO_ROOT

DOC = REPO_ROOT / "docs" / "architecture.md"
BEGIN = "<!-- import-graph:begin -->"  # generated between these: do not edit by hand
END = "<!-- import-graph:end -->"
SKIP_DIRS = {".venv", "node_modules", "cdk.out", ".git", "__pycache__", "build", "dist"}
NOT_DRAWN = {"tests"}
SCRIPT_DIRS = {"examples": "examples"}  # folders of scripts without __init__.py: their node
ENTRY_FILES = {"app.py": "app"}  # top-level scripts: their node
# Where a package lives (first path part) -> the group it is drawn in, in this order.
GROUPS = {
    "container": "runtime: TTS image",
    "agent": "runtime: agent image",
    "clients": "client libraries",
    "integrations": "published integrations",
}
TOOLS_GROUP = "tools (this repository's .venv)"


@dataclass
class Package:
    name: str
    root: Path  # the package directory, or the script file / folder
    group: str
    files: list[Path] = field(default_factory=list)

    def module_name(self, path: Path) -> str:
        """Dotted module name of one of this package's files."""
        if self.root.is_file():
            return self.name
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join([self.name, *parts])


def _walk(root: Path) -> Iterator[Path]:
    for path in sorted(root.iterdir()):
        if path.name in SKIP_DIRS or path.name.startswith("."):
            continue
        if path.is_dir():
            yield path
            yield from _walk(path)


def _group(path: Path, repo: Path) -> str:
    return GROUPS.get(path.relative_to(repo).parts[0], TOOLS_GROUP)


def find_packages(repo: Path = REPO_ROOT) -> dict[str, Package]:
    found: dict[str, Package] = {}
    for folder in _walk(repo):
        if (folder / "__init__.py").is_file() and not (folder.parent / "__init__.py").is_file():
            package = Package(folder.name, folder, _group(folder, repo))
            package.files = sorted(p for p in folder.rglob("*.py") if not _skipped(p, repo))
            found[package.name] = package
    for folder_name, node in SCRIPT_DIRS.items():
        folder = repo / folder_name
        if folder.is_dir() and node not in found:
            package = Package(node, folder, _group(folder, repo))
            package.files = sorted(p for p in folder.rglob("*.py") if not _skipped(p, repo))
            found[node] = package
    for file_name, node in ENTRY_FILES.items():
        if (repo / file_name).is_file():
            found[node] = Package(node, repo / file_name, TOOLS_GROUP, [repo / file_name])
    return dict(sorted(found.items()))


def _skipped(path: Path, repo: Path) -> bool:
    return any(part in SKIP_DIRS for part in path.relative_to(repo).parts)


# Where statements nest: bodies of functions, classes, if/for/while/with/try and their else,
# finally, except handlers and match cases.
_NESTED = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement at any depth (and the except handlers and match cases holding some).
    An import is a statement, so expressions are not visited: about a third of `ast.walk`'s
    time (the whole graph 3.3 s -> 1.2 s)."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        yield node
        for name in _NESTED:
            children = getattr(node, name, None)
            if isinstance(children, list):
                pending.extend(child for child in children if isinstance(child, ast.AST))


def imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Dotted names of every import in the source, wherever it stands (in functions and
    under TYPE_CHECKING too); relative imports resolved against `module`."""
    found: set[str] = set()
    for node in _statements(ast.parse(source).body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return found


@dataclass
class Graph:
    packages: dict[str, Package]
    modules: dict[str, set[str]]  # module -> modules of this repository it imports

    def package_edges(self) -> set[tuple[str, str]]:
        return {
            (a.split(".")[0], b.split(".")[0])
            for a, targets in self.modules.items()
            for b in targets
            if a.split(".")[0] != b.split(".")[0]
        }


def build_graph(repo: Path = REPO_ROOT) -> Graph:
    packages = find_packages(repo)
    owner: dict[str, Package] = {}
    sources: dict[str, tuple[str, bool]] = {}
    for package in packages.values():
        for path in package.files:
            name = package.module_name(path)
            owner[name] = package
            sources[name] = (path.read_text(encoding="utf-8"), path.name == "__init__.py")
    modules: dict[str, set[str]] = {}
    for name, (source, is_package) in sources.items():
        targets = set()
        for imported in imported_names(source, name, is_package):
            known = _longest_known(imported, owner)
            if known is not None and known != name:
                targets.add(known)
        modules[name] = targets
    return Graph(packages, modules)


def _longest_known(dotted: str, modules: dict[str, Package]) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def module_cycles(graph: Graph) -> list[list[str]]:
    """Circles between modules, a package's `__init__` aside: importing `a.b` runs `a`'s
    `__init__`, so an `__init__` that re-exports its submodules is not a design circle."""
    inits = {name for name, p in graph.packages.items() if p.root.is_dir()}
    inits |= {
        graph.packages[m.split(".")[0]].module_name(f)
        for m in graph.modules
        for f in graph.packages[m.split(".")[0]].files
        if f.name == "__init__.py"
    }
    edges = {a: {b for b in targets if b not in inits} for a, targets in graph.modules.items()}
    return cycles(edges)


def mermaid(graph: Graph) -> str:
    drawn = [p for p in graph.packages.values() if p.name not in NOT_DRAWN]
    names = {p.name for p in drawn}
    order = [*GROUPS.values(), TOOLS_GROUP]
    lines = ["```mermaid", "flowchart LR"]
    for number, group in enumerate(order):
        members = sorted(p.name for p in drawn if p.group == group)
        if not members:
            continue
        lines.append(f'  subgraph g{number}["{group}"]')
        lines.extend(f"    {name}" for name in members)
        lines.append("  end")
    edges = sorted((a, b) for a, b in graph.package_edges() if a in names and b in names)
    lines.extend(f"  {a} --> {b}" for a, b in edges)
    lines.append("```")
    return "\n".join(lines)


def block(graph: Graph) -> str:
    return f"{BEGIN}\n{mermaid(graph)}\n{END}"


def replace_block(doc: str, new_block: str) -> str:
    start, end = doc.find(BEGIN), doc.find(END)
    if start == -1 or end == -1:
        raise ValueError(f"{DOC.name} has no {BEGIN!r} ... {END!r} markers")
    return doc[:start] + new_block + doc[end + len(END) :]


def current_block(doc: str) -> str:
    start, end = doc.find(BEGIN), doc.find(END)
    return doc[start : end + len(END)] if start != -1 and end != -1 else ""


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the doc is stale")
    parser.add_argument("--print", action="store_true", help="print the diagram only")
    args = parser.parse_args(None if argv is None else list(argv))
    graph = build_graph()
    if args.print:
        print(mermaid(graph))
        return 0
    circles = module_cycles(graph)
    for circle in circles:
        print(f"import circle: {' <-> '.join(circle)}", file=sys.stderr)
    doc = DOC.read_text(encoding="utf-8")
    wanted = replace_block(doc, block(graph))
    if args.check:
        if wanted != doc:
            print(f"{DOC} is stale: run `python -m devkit.import_graph`", file=sys.stderr)
            return 1
        return 0
    if wanted != doc:
        DOC.write_text(wanted, encoding="utf-8")
        print(f"updated {DOC.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

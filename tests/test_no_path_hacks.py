"""Every package is installed (make setup), so nothing may put a folder on the import path by
hand: no sys.path edits, no PYTHONPATH in code, Makefile, Dockerfiles or docs, no pytest
`pythonpath` setting."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written in pieces so this file does not match itself.
PATH_HACK = re.compile(
    r"sys\.path\s*(\.\s*(insert|append|extend)\b|\[|\+=|=)"
    + "|PYTHON"
    + "PATH"
    + r"|^\s*python"
    + r"path\s*=",
    re.M,
)
SCANNED = {".py", ".toml", ".md", ".cfg", ".ini", ".sh", ".txt"}
SCANNED_NAMES = {"Makefile", "Dockerfile", "run", "serve"}


def path_hacks(text: str) -> list[str]:
    """The lines of text that edit the import path."""
    lines = text.splitlines()
    return [lines[text.count("\n", 0, m.start())] for m in PATH_HACK.finditer(text)]


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [
        ROOT / name
        for name in listed
        if (Path(name).suffix in SCANNED or Path(name).name in SCANNED_NAMES)
        and (ROOT / name).is_file()
    ]


def test_the_scanner_finds_each_kind_of_path_hack() -> None:
    samples = [
        "import sys\nsys.path.insert(0, 'agent')\n",
        "sys.path[:0] = ['x']\n",
        "sys.path.append(str(ROOT))\n",
        "env = {'PYTHON" + "PATH': 'container'}\n",
        "demo:\n\tPYTHON" + "PATH=agent python -m demo\n",
        "[tool.pytest.ini_options]\npython" + "path = ['container']\n",
    ]
    for sample in samples:
        assert path_hacks(sample), sample
    assert path_hacks("print(sys.path)\nfrom pathlib import Path\n") == []


def test_no_file_in_the_repository_edits_the_import_path() -> None:
    files = tracked_files()
    assert ROOT / "Makefile" in files and ROOT / "pyproject.toml" in files
    offenders = {
        str(path.relative_to(ROOT)): hacks
        for path in files
        if path != Path(__file__).resolve()
        and (hacks := path_hacks(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert offenders == {}

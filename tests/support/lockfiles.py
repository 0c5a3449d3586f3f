"""Reading pip requirement and lock files: pins, hashes, and what a specifier allows."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".venv", "node_modules", "cdk.out", ".git", ".hypothesis", "__pycache__"}
# Versions below the floor that a specifier must not admit (major lines and the edge).
BELOW_TORCH_FLOOR = ["0.4.1", "1.0.0", "1.13.1", "2.0.0", "2.5.1", "2.9.0", "2.9.1", "2.9.99"]
TORCH_FLOOR = Version("2.10.0")


@dataclass(frozen=True)
class LockEntry:
    name: str
    version: str
    hashes: tuple[str, ...]


def requirement_files(root: Path = ROOT) -> list[Path]:
    """Every requirements*.txt / *.lock / pyproject.toml in the repository (no vendored trees)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]  # never walk .venv or node_modules
        for name in files:
            if (name.startswith("requirements") and name.endswith((".txt", ".lock"))) or name in (
                "pyproject.toml",
                "requirements.lock",
            ):
                found.append(Path(folder) / name)
    return sorted(found)


def logical_lines(text: str) -> list[str]:
    """Requirement lines with continuations joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def parse_lock(text: str) -> list[LockEntry]:
    """Entries of a `--generate-hashes` lock; raises ValueError on any unpinned/unhashed line."""
    entries = []
    for line in logical_lines(text):
        if line.startswith("-"):
            raise ValueError(f"option line in a lock file: {line!r}")
        parts = line.split()
        hashes = tuple(p.removeprefix("--hash=") for p in parts[1:] if p.startswith("--hash="))
        if len(hashes) != len(parts) - 1 or not hashes:
            raise ValueError(f"lock line without sha256 hashes: {line!r}")
        if not all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes):
            raise ValueError(f"malformed hash in {line!r}")
        req = Requirement(parts[0])
        pins = list(req.specifier)
        if len(pins) != 1 or pins[0].operator != "==":
            raise ValueError(f"lock line is not pinned with ==: {line!r}")
        entries.append(LockEntry(canonicalize_name(req.name), pins[0].version, hashes))
    return entries


def direct_pins(path: Path) -> dict[str, str]:
    """name -> version of the == pins in a requirements file, following -r includes."""
    pins: dict[str, str] = {}
    for line in logical_lines(path.read_text()):
        if line.startswith("-r"):
            pins.update(direct_pins(path.parent / line[2:].strip()))
            continue
        req = Requirement(line)
        (spec,) = list(req.specifier)
        pins[canonicalize_name(req.name)] = spec.version
    return pins


def torch_specs(text: str) -> list[Requirement]:
    """Every requirement on torch in a file's text (requirement lines or quoted TOML strings)."""
    candidates = logical_lines(text) + re.findall(r"[\"']([^\"']+)[\"']", text)
    out = []
    for candidate in candidates:
        try:
            req = Requirement(candidate.split()[0] if " --hash" in candidate else candidate)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == "torch":
            out.append(req)
    return out


def allows_old_torch(req: Requirement) -> bool:
    """True if the requirement admits any torch release below 2.10.0 (or is unconstrained)."""
    return any(req.specifier.contains(v, prereleases=True) for v in BELOW_TORCH_FLOOR)

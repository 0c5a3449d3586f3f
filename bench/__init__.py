"""Benchmarks: time to first audio, payload sizes and concurrency on the real Kokoro server.

Scripts print tables and write `bench/results/<name>.json` and `<name>.png`; they are never
timed assertions. `python -m bench.report` turns the JSON into the tables of
docs/performance.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The benchmarks import the server package the container ships (`container/kokoro_server`) and
# the agent's package (`agent/voice_agent`: its transports, local stack and caller). Neither is
# an installed package, so put both on the path (pytest does the same through pyproject.toml).
for _package_root in (ROOT / "container", ROOT / "agent"):
    if str(_package_root) not in sys.path:
        sys.path.insert(0, str(_package_root))

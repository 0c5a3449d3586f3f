"""Snapshots of both templates; asset hashes are masked so only infrastructure changes show.

Update after an intended change: .venv/bin/python -m pytest tests/stacks --snapshot-update
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from stacks.weights_manifest import MANIFEST_PATH
from tests.support.cdk_synth import AGENT, TTS, Synthesized

pytestmark = pytest.mark.synth

_HEX64 = re.compile(r"[0-9a-f]{64}")
# Pinned checksums are infrastructure, not volatile: keep them visible in the snapshot.
_PINNED = set(re.findall(r'"sha256": "([0-9a-f]{64})"', MANIFEST_PATH.read_text()))


def mask(value: Any) -> Any:
    """Replace content hashes of assets (images, Lambda code) with a placeholder."""
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        return _HEX64.sub(lambda m: m[0] if m[0] in _PINNED else "<asset-hash>", value)
    return value


def test_mask_keeps_pinned_checksums_and_hides_asset_hashes() -> None:
    pinned = next(iter(_PINNED))
    asset = "ab" * 32
    assert mask({"a": [f"repo:{asset}", pinned]}) == {"a": ["repo:<asset-hash>", pinned]}


@pytest.mark.parametrize("stack", [TTS, AGENT])
def test_template_snapshot(synthesized: Synthesized, snapshot: Any, stack: str) -> None:
    masked = mask(synthesized.templates[stack])
    assert "<asset-hash>" in json.dumps(masked)
    assert masked == snapshot(extension_class=JSONSnapshotExtension)


@pytest.mark.parametrize("stack", [TTS, AGENT])
def test_deployed_template_snapshot(deployed: Synthesized, snapshot: Any, stack: str) -> None:
    """Per region, as `cdk deploy` synthesizes it (concrete account, region and partition)."""
    masked = mask(deployed.templates[stack])
    assert deployed.region is not None and deployed.region in json.dumps(masked)
    assert masked == snapshot(extension_class=JSONSnapshotExtension)

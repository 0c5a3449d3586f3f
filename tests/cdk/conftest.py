"""Synthesize the real CDK app once per session; tests read the templates and assembly."""

from __future__ import annotations

import os

# Set before aws_cdk starts its node process: the pinned node 20 is past end of life and
# jsii would print a banner on every run (the CLI itself is pinned in package.json).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App
from aws_cdk.assertions import Template

from stacks.app_builder import build_app

TTS = "KokoroVoice-Tts"
AGENT = "KokoroVoice-Agent"


@dataclass
class Synthesized:
    app: App
    outdir: Path
    templates: dict[str, dict[str, Any]]
    assertions: dict[str, Template]

    def resources(self, stack: str, cfn_type: str) -> dict[str, dict[str, Any]]:
        return {
            logical_id: res
            for logical_id, res in self.templates[stack]["Resources"].items()
            if res["Type"] == cfn_type
        }

    def only(self, stack: str, cfn_type: str) -> dict[str, Any]:
        found = self.resources(stack, cfn_type)
        assert len(found) == 1, f"expected one {cfn_type} in {stack}, found {list(found)}"
        return next(iter(found.values()))


# A second configuration, synthesized once: reuse a retained weights bucket and call a plain
# (in-region) Bedrock model id instead of an inference profile.
RETAINED_BUCKET = "kokorovoice-tts-weightsbucket670f500a-1x2y3z4w5v6u"
PLAIN_MODEL_ID = "anthropic.claude-haiku-4-5-20251001-v1:0"
VARIANT_CONTEXT = {"weights_bucket": RETAINED_BUCKET, "bedrock_model_id": PLAIN_MODEL_ID}


def _synthesize(outdir: Path, context: dict[str, Any] | None = None) -> Iterator[Synthesized]:
    """Environment-agnostic synth (no account/region from the caller's env)."""
    saved = {
        k: os.environ.pop(k)
        for k in ("CDK_DEFAULT_ACCOUNT", "CDK_DEFAULT_REGION")
        if k in os.environ
    }
    try:
        app = build_app(context, outdir=str(outdir))
        assembly = app.synth()  # raises if cdk-nag reports an unacknowledged finding
        templates = {s.stack_name: s.template for s in assembly.stacks}
        assertions = {name: Template.from_stack(app.node.find_child(name)) for name in templates}
        yield Synthesized(app, outdir, templates, assertions)
    finally:
        os.environ.update(saved)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The default app."""
    yield from _synthesize(tmp_path_factory.mktemp("cdk.out"))


@pytest.fixture(scope="session")
def variant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The app with VARIANT_CONTEXT."""
    yield from _synthesize(tmp_path_factory.mktemp("cdk.out.variant"), VARIANT_CONTEXT)


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))

"""Synthesize the real CDK app once per session; tests read the templates and assembly."""

from __future__ import annotations

import os

# Set before aws_cdk starts its node process: the pinned node 20 is past end of life and
# jsii would print a banner on every run (the CLI itself is pinned in package.json).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template

from stacks.app_builder import build_app
from tests.support.cdk_synth import VARIANT_CONTEXT, Synthesized


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

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

from tests.support.cdk_synth import (
    CDK_JSON_CONTEXT,
    DEPLOY_ACCOUNT,
    DEPLOY_REGIONS,
    VARIANT_CONTEXT,
    Synthesized,
    stack_of,
)

ENV_KEYS = ("CDK_DEFAULT_ACCOUNT", "CDK_DEFAULT_REGION")


def _synthesize(
    outdir: Path, context: dict[str, Any] | None = None, region: str | None = None
) -> Iterator[Synthesized]:
    """Synth in process. region None: environment-agnostic (the caller's CDK_DEFAULT_* are
    removed); a region: as `cdk deploy` runs the app, with DEPLOY_ACCOUNT and that region in
    CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION, which the CDK CLI sets from the credentials."""
    # Imported here: aws-cdk-lib costs 1.5 s, and the edit loop collects this directory too.
    from aws_cdk.assertions import Template

    from stacks.app_builder import build_app

    saved = {k: os.environ.pop(k) for k in ENV_KEYS if k in os.environ}
    try:
        if region is not None:
            os.environ.update({"CDK_DEFAULT_ACCOUNT": DEPLOY_ACCOUNT, "CDK_DEFAULT_REGION": region})
        app = build_app(context, outdir=str(outdir))
        assembly = app.synth()  # raises if cdk-nag reports an unacknowledged finding
        templates = {s.stack_name: s.template for s in assembly.stacks}
        assertions = {name: Template.from_stack(stack_of(app, name)) for name in templates}
        yield Synthesized(app, outdir, templates, assertions, region)
    finally:
        for key in ENV_KEYS:
            os.environ.pop(key, None)
        os.environ.update(saved)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The default app, environment-agnostic."""
    yield from _synthesize(tmp_path_factory.mktemp("cdk.out"))


@pytest.fixture(scope="session")
def variant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The app with VARIANT_CONTEXT."""
    yield from _synthesize(tmp_path_factory.mktemp("cdk.out.variant"), VARIANT_CONTEXT)


@pytest.fixture(scope="session", params=DEPLOY_REGIONS)
def deployed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Synthesized]:
    """The default app (cdk.json context) synthesized as `cdk deploy` does, per region."""
    region: str = request.param
    yield from _synthesize(tmp_path_factory.mktemp(f"cdk.out.{region}"), CDK_JSON_CONTEXT, region)


@pytest.fixture(scope="session")
def paused(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synthesized]:
    """The app deployed with -c voice_paused=true in us-east-1."""
    yield from _synthesize(
        tmp_path_factory.mktemp("cdk.out.paused"),
        {**CDK_JSON_CONTEXT, "voice_paused": "true"},
        "us-east-1",
    )

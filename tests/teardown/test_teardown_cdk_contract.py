"""The bootstrap repository the cleanup looks in for ``--image-tag`` (no cdk.out) against the
one a real ``cdk synth`` names in its asset manifest, with and without a custom qualifier in
cdk.json context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, DefaultStackSynthesizer, Stack
from aws_cdk.aws_ecr_assets import DockerImageAsset

from teardown.config import cdk_defaults
from teardown.manifests import bootstrap_repository, image_refs_from_manifests
from tests.support.teardown_world import REPO_TEMPLATE

pytestmark = pytest.mark.synth  # a real (in-process) CDK synth, through jsii and Node.js

ACCOUNT, REGION = "111122223333", "eu-west-1"


def _synth(tmp_path: Path, context: dict[str, str]) -> Path:
    """Synthesizes one stack with one image asset, as the app's stacks do; no Docker needed."""
    image_dir = tmp_path / "image"
    image_dir.mkdir()
    (image_dir / "Dockerfile").write_text("FROM scratch\n")
    out = tmp_path / "cdk.out"
    app = App(outdir=str(out), context=context)
    DockerImageAsset(Stack(app, "Probe"), "Image", directory=str(image_dir))
    app.synth()
    return out


@pytest.mark.parametrize("context", [{}, {"@aws-cdk/core:bootstrapQualifier": "custom123"}])
def test_image_tag_repository_is_the_one_cdk_synth_publishes_to(tmp_path, context):
    (tmp_path / "cdk.json").write_text(json.dumps({"context": context}))
    [synthesized] = image_refs_from_manifests(_synth(tmp_path, context), ACCOUNT, REGION)

    qualifier = cdk_defaults(tmp_path).qualifier
    assert bootstrap_repository(qualifier, ACCOUNT, REGION) == synthesized.repository


def test_the_test_worlds_repository_template_is_aws_cdk_libs() -> None:
    """The leftover world (tests/support/teardown_world.py) types the template so building
    it does not start aws-cdk-lib's runtime; here it is held to the library."""
    name = DefaultStackSynthesizer.DEFAULT_IMAGE_ASSETS_REPOSITORY_NAME
    assert name.replace("${Qualifier}", DefaultStackSynthesizer.DEFAULT_QUALIFIER) == REPO_TEMPLATE

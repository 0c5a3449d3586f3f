"""cdk-nag AwsSolutionsChecks: zero unacknowledged findings, and a new one fails synth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App
from aws_cdk import aws_iam as iam

from stacks.app_builder import build_app
from stacks.nag import acknowledge
from tests.support.cdk_synth import AGENT, TTS, Synthesized, stack_of

pytestmark = pytest.mark.synth

STACKS_DIR = Path(__file__).resolve().parents[2] / "stacks"


def test_app_synth_has_no_unacknowledged_findings(synthesized: Synthesized) -> None:
    # The session fixture's synth would have raised; the report confirms no plugin failed
    # (test_new_unacknowledged_finding_fails_synth proves the plugin is attached and runs).
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    assert report["pluginReports"] == []


def test_deploy_synth_has_no_unacknowledged_findings(deployed: Synthesized) -> None:
    # Synthesized as `cdk deploy` does: concrete ARNs, which acknowledgements written for the
    # environment-agnostic form alone would not match (the fixture's synth would raise).
    report = json.loads((deployed.outdir / "validation-report.json").read_text())
    assert report["pluginReports"] == []
    template = json.dumps(deployed.templates[AGENT])
    assert f"arn:aws:logs:{deployed.region}:123456789012:log-group:" in template


def test_every_acknowledgement_has_a_specific_reason() -> None:
    sources = "\n".join(p.read_text() for p in STACKS_DIR.rglob("*.py"))
    assert sources.count("acknowledge(") >= 8
    with pytest.raises(ValueError, match="specific reason"):
        acknowledge(App(), "AwsSolutions-IAM5", "needed")


def test_new_unacknowledged_finding_fails_synth(tmp_path: Path) -> None:
    app = build_app(outdir=str(tmp_path))
    stack = stack_of(app, TTS)
    role = iam.Role(
        stack, "UnreviewedRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com")
    )
    role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=["*"]))
    with pytest.raises(Exception, match=r"ValidationFailed(.|\n)*UnreviewedRole"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    paths = [
        c["constructPath"]
        for v in report["pluginReports"][0]["violations"]
        for c in v["violatingConstructs"]
    ]
    assert any("UnreviewedRole" in p for p in paths)

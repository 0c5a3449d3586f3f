"""cfn-lint over the synthesized templates: zero errors."""

from __future__ import annotations

import pytest
from cfnlint.api import ManualArgs, lint

from tests.support.cdk_synth import AGENT, TTS, Synthesized

pytestmark = pytest.mark.synth

REGIONS = ["us-east-1", "us-west-2"]


@pytest.mark.parametrize("stack", [TTS, AGENT])
def test_template_has_no_cfn_lint_errors(synthesized: Synthesized, stack: str) -> None:
    text = (synthesized.outdir / f"{stack}.template.json").read_text()
    matches = lint(text, config=ManualArgs(regions=REGIONS))
    errors = [m for m in matches if m.rule.id.startswith("E")]
    assert not errors, "\n".join(str(m) for m in errors)


@pytest.mark.parametrize("stack", [TTS, AGENT])
def test_deployed_template_has_no_cfn_lint_errors(deployed: Synthesized, stack: str) -> None:
    assert deployed.region is not None
    text = (deployed.outdir / f"{stack}.template.json").read_text()
    matches = lint(text, config=ManualArgs(regions=[deployed.region]))
    errors = [m for m in matches if m.rule.id.startswith("E")]
    assert not errors, "\n".join(str(m) for m in errors)


def test_cfn_lint_catches_a_broken_template(synthesized: Synthesized) -> None:
    # Proves the lint call above can fail: an invalid routing strategy is an error.
    text = (synthesized.outdir / f"{TTS}.template.json").read_text()
    broken = text.replace("LEAST_OUTSTANDING_REQUESTS", "FASTEST_PLEASE")
    matches = lint(broken, config=ManualArgs(regions=REGIONS))
    assert any(m.rule.id.startswith("E") for m in matches)

"""Build the whole CDK app: both stacks, tags and cdk-nag. Used by app.py and the tests."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aws_cdk import Acknowledgment, Annotations, App, Environment, Stack, Tags, Validations
from cdk_nag import AwsSolutionsChecks

from stacks.agent_stack import AgentStack
from stacks.app_identity import APP_TAG_KEY
from stacks.config import load_config
from stacks.errors import DeployCheckError
from stacks.regions import agentcore_warning
from stacks.tts_stack import TtsStack

REPO_ROOT = Path(__file__).resolve().parent.parent


class DeployEnvironmentError(DeployCheckError):
    """Synth as deploy was asked for, but no account/region is known."""


def build_app(
    context: Mapping[str, Any] | None = None,
    *,
    container_dir: Path | None = None,
    agent_dir: Path | None = None,
    outdir: str | None = None,
) -> App:
    """Create the app with both stacks; cdk-nag findings raise when the app is synthesized."""
    app = App(context=dict(context or {}), outdir=outdir)
    # Account/region come from the CLI's environment (`cdk deploy` always sets both from the
    # credentials); without credentials they stay unresolved tokens and synth still works
    # (environment-agnostic templates, which no deploy uses).
    account = os.environ.get("CDK_DEFAULT_ACCOUNT")
    region = os.environ.get("CDK_DEFAULT_REGION")
    env = Environment(account=account, region=region) if account and region else None
    if env is None and os.environ.get("KOKORO_SYNTH_AS_DEPLOY") == "1":
        raise DeployEnvironmentError(
            "make synth/deploy synthesize as `cdk deploy` does, for the account and region of "
            f"your AWS credentials, but the CDK CLI found {'no account' if not account else ''}"
            f"{' and ' if not account and not region else ''}{'no region' if not region else ''}"
            ": sign in (aws configure / aws sso login) and set a region (AWS_REGION or your "
            "profile's), or name both: make synth ACCOUNT=123456789012 REGION=us-east-1"
        )
    config = load_config(app.node, region if env else None)

    tts = TtsStack(
        app,
        config.tts_stack_name,
        config=config,
        container_dir=container_dir or REPO_ROOT / "container",
        env=env,
        description=f"{config.app_name}: Kokoro-82M TTS on a SageMaker bidirectional endpoint",
    )
    agent = AgentStack(
        app,
        config.agent_stack_name,
        config=config,
        agent_dir=agent_dir or REPO_ROOT / "agent",
        endpoint_name=tts.endpoint_name,
        env=env,
        description=f"{config.app_name}: AgentCore voice agent streaming into the TTS endpoint",
    )
    agent.add_stack_dependency(tts, "the agent invokes the TTS endpoint")

    if env is not None and region:
        _check_region_lists(config.allow_undocumented_region, region, agent=agent, tts=tts)
    # The cleanup script finds leftovers by this tag.
    Tags.of(app).add(APP_TAG_KEY, config.app_name)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


# CloudFormation's validation in synth (aws-cdk-lib's bundled resource schemas per region)
# reports a resource type missing from its list for the region as this rule, an error.
CFN_TYPE_NOT_IN_REGION = "CloudFormation-Validate::F3006"


def _check_region_lists(allow: bool, region: str, *, agent: Stack, tts: Stack) -> None:
    """Region lists that can be stale: AgentCore's documented regions (a warning on the agent
    stack; `cdk deploy --strict` makes it an error) and the resource types aws-cdk-lib knows
    per region (an error). `allow_undocumented_region` sets both aside, and CloudFormation
    itself decides at deploy time: a type its registry lacks in the region fails the change
    set before anything is created (docs/deploy.md)."""
    warning = agentcore_warning(region)
    if not allow:
        if warning:
            Annotations.of(agent).add_warning_v2("kokoro-voice:undocumented-region", warning)
        return
    for stack in (tts, agent):
        Validations.of(stack).acknowledge(
            Acknowledgment(
                id=CFN_TYPE_NOT_IN_REGION,
                reason=(
                    f"deployed with allow_undocumented_region=true to {region}: the resource "
                    "types aws-cdk-lib lists per region may predate the region's services"
                ),
            )
        )

"""Build the whole CDK app: both stacks, tags and cdk-nag. Used by app.py and the tests."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aws_cdk import Annotations, App, Environment, Tags, Validations
from cdk_nag import AwsSolutionsChecks

from stacks.agent_stack import AgentStack
from stacks.app_identity import APP_TAG_KEY
from stacks.config import load_config
from stacks.regions import agentcore_warning
from stacks.tts_stack import TtsStack

REPO_ROOT = Path(__file__).resolve().parent.parent


class DeployEnvironmentError(RuntimeError):
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

    # A warning on the stack that needs the service: `cdk synth|deploy` print it, and
    # `--strict` turns it into an error.
    warning = agentcore_warning(region) if env is not None and region else None
    if warning and not config.allow_undocumented_region:
        Annotations.of(agent).add_warning_v2("kokoro-voice:undocumented-region", warning)
    # The cleanup script finds leftovers by this tag.
    Tags.of(app).add(APP_TAG_KEY, config.app_name)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app

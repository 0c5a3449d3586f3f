"""Build the whole CDK app: both stacks, tags and cdk-nag. Used by app.py and the tests."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aws_cdk import App, Environment, Tags, Validations
from cdk_nag import AwsSolutionsChecks

from stacks.agent_stack import AgentStack
from stacks.app_identity import APP_TAG_KEY
from stacks.config import load_config
from stacks.tts_stack import TtsStack

REPO_ROOT = Path(__file__).resolve().parent.parent


def build_app(
    context: Mapping[str, Any] | None = None,
    *,
    container_dir: Path | None = None,
    agent_dir: Path | None = None,
    outdir: str | None = None,
) -> App:
    """Create the app with both stacks; cdk-nag findings raise when the app is synthesized."""
    app = App(context=dict(context or {}), outdir=outdir)
    config = load_config(app.node)
    # Account/region come from the CLI's environment; without credentials they stay
    # unresolved tokens and synth still works (environment-agnostic templates).
    account = os.environ.get("CDK_DEFAULT_ACCOUNT")
    region = os.environ.get("CDK_DEFAULT_REGION")
    env = Environment(account=account, region=region) if account and region else None

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

    # The cleanup script finds leftovers by this tag.
    Tags.of(app).add(APP_TAG_KEY, config.app_name)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app

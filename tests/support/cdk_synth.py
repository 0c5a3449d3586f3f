"""The synthesized CDK app as the stacks tests read it (the fixture is in tests/stacks)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # aws-cdk-lib costs 1.5 s to import: only the synth tests pay it
    from aws_cdk import App, Stack
    from aws_cdk.assertions import Template

REPO_ROOT = Path(__file__).resolve().parents[2]
TTS = "KokoroVoice-Tts"
AGENT = "KokoroVoice-Agent"

# A second configuration (the `variant` fixture): reuse a retained weights bucket and call a
# plain (in-region) Bedrock model id instead of an inference profile.
RETAINED_BUCKET = "kokorovoice-tts-weightsbucket670f500a-1x2y3z4w5v6u"
PLAIN_MODEL_ID = "anthropic.claude-haiku-4-5-20251001-v1:0"
VARIANT_CONTEXT = {"weights_bucket": RETAINED_BUCKET, "bedrock_model_id": PLAIN_MODEL_ID}

# Synth as `cdk deploy` runs the app: a 12-digit account, a concrete region (the CDK CLI sets
# both from the credentials) and the context of cdk.json (which the CLI passes to the app).
DEPLOY_ACCOUNT = "123456789012"
DEPLOY_REGIONS = ("us-east-1", "us-west-2", "eu-central-1", "ap-northeast-1")
CDK_JSON_CONTEXT: dict[str, Any] = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]


@dataclass
class Synthesized:
    app: App
    outdir: Path
    templates: dict[str, dict[str, Any]]
    assertions: dict[str, Template]
    region: str | None = None  # None: environment-agnostic

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


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def stack_of(app: App, name: str) -> Stack:
    """The app's stack `name` (find_child is typed as any construct)."""
    from aws_cdk import Stack

    child = app.node.find_child(name)
    assert isinstance(child, Stack), f"{name} is not a stack of the app"
    return child

"""What to check: the endpoint name and runtime ARN, from flags or the deployed stacks' outputs.

The stack names and output keys are the CDK app's (stacks/config.py, stacks/tts_stack.py,
stacks/agent_stack.py); tests check them against the app's synthesized templates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smoke.aws import SetupError, setup_error
from smoke.diagnosis import Call, Cause, from_exception

DEFAULT_APP_NAME = "kokoro-voice"
ENDPOINT_OUTPUT = "EndpointName"  # TTS stack
RUNTIME_OUTPUT = "RuntimeArn"  # agent stack


@dataclass(frozen=True)
class StackNames:
    tts: str
    agent: str


def stack_names(app_name: str) -> StackNames:
    """'kokoro-voice' -> KokoroVoice-Tts / KokoroVoice-Agent, as the CDK app names them."""
    prefix = "".join(part.capitalize() for part in app_name.split("-"))
    return StackNames(tts=f"{prefix}-Tts", agent=f"{prefix}-Agent")


def app_name_from_cdk_json(app_dir: Path) -> str:
    """The `app_name` context key of APP_DIR/cdk.json (the app's default when absent)."""
    path = app_dir / "cdk.json"
    if not path.is_file():
        return DEFAULT_APP_NAME
    try:
        context = json.loads(path.read_text(encoding="utf-8")).get("context", {})
    except (OSError, ValueError, AttributeError) as exc:
        raise setup_error(
            Cause.CONFIGURATION, f"cannot read {path}: {exc}", "fix cdk.json or pass --app-name"
        ) from exc
    return str(context.get("app_name") or DEFAULT_APP_NAME)


def stack_outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    """OutputKey -> OutputValue of one deployed stack; a clear SetupError when unreadable."""
    call = Call("DescribeStacks", "cloudformation:DescribeStacks", f"stack {stack}")
    try:
        stacks = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except Exception as exc:
        raise SetupError(from_exception(exc, call)) from exc
    return {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}


def output_value(cloudformation: Any, stack: str, key: str, flag: str) -> str:
    try:
        outputs = stack_outputs(cloudformation, stack)
    except SetupError as exc:
        if exc.diagnosis.cause is not Cause.NOT_FOUND:
            raise
        raise setup_error(
            Cause.NOT_FOUND,
            exc.diagnosis.summary,
            f"check the region (--region, AWS_REGION) and the app name (--app-name), deploy "
            f"with `npx cdk deploy --all`, or pass {flag}",
        ) from exc
    value = outputs.get(key)
    if not value:
        raise setup_error(
            Cause.NOT_FOUND,
            f"stack {stack} has no output {key} (not deployed completely?)",
            f"deploy with `npx cdk deploy --all`, or pass {flag}",
        )
    return value

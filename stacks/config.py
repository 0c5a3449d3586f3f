"""App configuration from cdk.json context, validated once with clear errors.

Every key has a default here and in cdk.json; `-c key=value` on the command line overrides
it (values from the command line arrive as strings, so numbers are parsed here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from constructs import Node

from stacks.app_identity import APP_NAME_PATTERN, APP_NAME_RULE, DEFAULT_APP_NAME

DEFAULTS: dict[str, Any] = {
    "app_name": DEFAULT_APP_NAME,
    "instance_type": "ml.g5.xlarge",
    "initial_instance_count": 1,
    "min_instances": 1,
    "max_instances": 2,
    "target_concurrency_per_instance": 4,
    "voice": "af_heart",
    "bedrock_model_id": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    "bedrock_model_regions": None,
    "weights_revision": "kokoro-82m-v1.0-onnx-fp32",
    "inference_ami_version": "al2-ami-sagemaker-inference-gpu-3-1",
    "startup_health_check_timeout_s": 600,
    "model_data_download_timeout_s": 600,
    "latency_alarm_p90_ms": 2000,
    "network_isolation": True,
}

# Regions a geographic cross-region inference profile routes to. Used to scope the agent's
# Bedrock permissions to the foundation model in exactly those regions.
PROFILE_REGIONS: dict[str, tuple[str, ...]] = {
    "us": ("us-east-1", "us-east-2", "us-west-2"),
    "eu": ("eu-central-1", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-3"),
    "apac": (
        "ap-northeast-1",
        "ap-northeast-2",
        "ap-northeast-3",
        "ap-south-1",
        "ap-south-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-4",
    ),
}

_APP_NAME = APP_NAME_PATTERN
_INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9]+\.[a-z0-9]+$")
_VOICE = re.compile(r"^[a-z]{2}_[a-z0-9_]+$")
_MODEL_ID = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?$")
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]$")


class ConfigError(ValueError):
    """A context value is missing or invalid."""


@dataclass(frozen=True)
class AppConfig:
    app_name: str
    instance_type: str
    initial_instance_count: int
    min_instances: int
    max_instances: int
    target_concurrency_per_instance: int
    voice: str
    bedrock_model_id: str
    bedrock_model_regions: tuple[str, ...]
    weights_revision: str
    inference_ami_version: str
    startup_health_check_timeout_s: int
    model_data_download_timeout_s: int
    latency_alarm_p90_ms: int
    network_isolation: bool

    @property
    def stack_prefix(self) -> str:
        """PascalCase app name: 'kokoro-voice' -> 'KokoroVoice'."""
        return "".join(part.capitalize() for part in self.app_name.split("-"))

    @property
    def tts_stack_name(self) -> str:
        return f"{self.stack_prefix}-Tts"

    @property
    def agent_stack_name(self) -> str:
        return f"{self.stack_prefix}-Agent"

    @property
    def endpoint_name(self) -> str:
        """Deterministic, so IAM policies and the log group can name it before it exists."""
        return f"{self.app_name}-tts"

    @property
    def runtime_name(self) -> str:
        """AgentCore runtime names allow letters, digits and '_' only."""
        return f"{self.app_name.replace('-', '_')}_agent"

    @property
    def bedrock_model_is_profile(self) -> bool:
        return self.bedrock_model_id.split(".", 1)[0] in PROFILE_REGIONS or bool(
            self.bedrock_model_id.startswith("global.")
        )

    @property
    def bedrock_foundation_model_id(self) -> str:
        """The model id without a geographic inference-profile prefix."""
        if self.bedrock_model_is_profile:
            return self.bedrock_model_id.split(".", 1)[1]
        return self.bedrock_model_id


def _int(key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"context {key!r} must be an integer, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError as exc:
        raise ConfigError(f"context {key!r} must be an integer, got {value!r}") from exc
    if not low <= number <= high:
        raise ConfigError(f"context {key!r} must be between {low} and {high}, got {number}")
    return number


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ConfigError(f"context {key!r} must be true or false, got {value!r}")


def _str(key: str, value: Any, pattern: re.Pattern[str], what: str) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise ConfigError(f"context {key!r} must be {what}, got {value!r}")
    return value


def _regions(model_id: str, value: Any) -> tuple[str, ...]:
    if value not in (None, "", []):
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not items:
            raise ConfigError("context 'bedrock_model_regions' must be a list of region names")
        regions = tuple(str(r).strip() for r in items)
        for region in regions:
            if not _REGION.match(region):
                raise ConfigError(f"context 'bedrock_model_regions': bad region {region!r}")
        return regions
    prefix = model_id.split(".", 1)[0]
    if prefix in PROFILE_REGIONS:
        return PROFILE_REGIONS[prefix]
    if prefix == "global":
        raise ConfigError(
            f"bedrock_model_id {model_id!r} is a global inference profile, which may route to "
            "any commercial region; set context 'bedrock_model_regions' to the regions you "
            "allow (the agent's IAM policy names the foundation model in each of them)"
        )
    return ()  # an in-region model id: the stack's own region


def load_config(node: Node) -> AppConfig:
    """Read every context key (falling back to DEFAULTS) and validate it."""

    def get(key: str) -> Any:
        value = node.try_get_context(key)
        return DEFAULTS[key] if value is None else value

    app_name = _str("app_name", get("app_name"), _APP_NAME, APP_NAME_RULE)
    model_id = _str(
        "bedrock_model_id", get("bedrock_model_id"), _MODEL_ID, "a Bedrock model or profile id"
    )
    cfg = AppConfig(
        app_name=app_name,
        instance_type=_str(
            "instance_type", get("instance_type"), _INSTANCE_TYPE, "like 'ml.g5.xlarge'"
        ),
        initial_instance_count=_int("initial_instance_count", get("initial_instance_count"), 1, 20),
        min_instances=_int("min_instances", get("min_instances"), 1, 20),
        max_instances=_int("max_instances", get("max_instances"), 1, 20),
        target_concurrency_per_instance=_int(
            "target_concurrency_per_instance", get("target_concurrency_per_instance"), 1, 1000
        ),
        voice=_str("voice", get("voice"), _VOICE, "a Kokoro voice name like 'af_heart'"),
        bedrock_model_id=model_id,
        bedrock_model_regions=_regions(model_id, get("bedrock_model_regions")),
        weights_revision=str(get("weights_revision")),
        inference_ami_version=str(get("inference_ami_version")),
        startup_health_check_timeout_s=_int(
            "startup_health_check_timeout_s", get("startup_health_check_timeout_s"), 60, 3600
        ),
        model_data_download_timeout_s=_int(
            "model_data_download_timeout_s", get("model_data_download_timeout_s"), 60, 3600
        ),
        latency_alarm_p90_ms=_int("latency_alarm_p90_ms", get("latency_alarm_p90_ms"), 1, 600000),
        network_isolation=_bool("network_isolation", get("network_isolation")),
    )
    if not cfg.min_instances <= cfg.initial_instance_count <= cfg.max_instances:
        raise ConfigError(
            "context must satisfy min_instances <= initial_instance_count <= max_instances, got "
            f"{cfg.min_instances} <= {cfg.initial_instance_count} <= {cfg.max_instances}"
        )
    return cfg

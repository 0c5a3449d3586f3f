"""App configuration from cdk.json context, validated once with clear errors.

Every key has a default here and in cdk.json; `-c key=value` on the command line overrides
it (values from the command line arrive as strings, so numbers are parsed here).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stacks.app_identity import APP_NAME_PATTERN, APP_NAME_RULE, DEFAULT_APP_NAME
from stacks.errors import DeployCheckError
from stacks.regions import (
    RegionConfigError,
    check_profile_geography,
    check_region_name,
    resolve_model_id,
)

if TYPE_CHECKING:  # importing constructs starts the jsii runtime (Node.js, 0.7 s): the
    # weights fetcher and the cleanup read DEFAULTS without it
    from constructs import Node

DEFAULTS: dict[str, Any] = {
    "app_name": DEFAULT_APP_NAME,
    "instance_type": "ml.g5.xlarge",
    "initial_instance_count": 1,
    "min_instances": 1,
    "max_instances": 2,
    # 0.75 x the 26 streams a g5 is publicly known to hold (docs/performance.md, "Where a g5
    # runs out"); `make loadtest` against the endpoint confirms or corrects it.
    "target_concurrency_per_instance": 19,
    # The container's session limit (KOKORO_MAX_SESSIONS): more than the scaling target, so
    # the endpoint scales out before any caller is refused (docs/capacity.md).
    "max_sessions_per_instance": 32,
    "voice": "af_heart",
    # "auto": Claude Haiku 4.5 through the inference profile of the deploy region's geography
    # (stacks/regions.py); any model or profile id is taken as given (and checked).
    "bedrock_model_id": "auto",
    "weights_revision": "kokoro-82m-v1.0-onnx-fp32",
    # "" creates the weights bucket; a name imports the bucket a destroyed stack retained.
    "weights_bucket": "",
    "inference_ami_version": "al2023-ami-sagemaker-inference-gpu-4-1",
    "startup_health_check_timeout_s": 600,
    "model_data_download_timeout_s": 600,
    # Alarms (docs/monitoring.md): "" creates the alarm topic without a subscription.
    "alarm_email": "",
    "first_sound_alarm_p95_ms": 1500,
    "refusal_alarm_minutes": 5,
    # Blue/green endpoint updates (docs/deploy.md, "Updates and live streams").
    "deployment_baking_s": 600,
    "deployment_termination_wait_s": 300,
    "network_isolation": True,
    # "cuda": the endpoint refuses to serve unless ONNX Runtime runs on the GPU; "auto" lets it
    # fall back to the CPU provider (many times slower; for debugging only).
    "kokoro_provider": "cuda",
    # true: deploy everything but the SageMaker endpoint (no instance billing); the agent
    # answers callers with a `voice_paused` error. Deploy without it to resume.
    "voice_paused": False,
    # true: a region this app does not know, or where a service it needs is not documented
    # (or CloudFormation's bundled resource list lacks a type), is deployed to anyway.
    "allow_undocumented_region": False,
    # "": no voices of your own. "voices/": the server also loads the voice files under
    # kokoro/<revision>/voices/ of the weights bucket, copied with the weights
    # (docs/deploy.md, "Your own voices").
    "user_voices_prefix": "",
}

# Id prefixes of cross-region (system-defined) inference profiles, as in aws-cdk's
# CrossRegionInferenceProfileRegion (@aws-cdk/aws-bedrock-alpha). Which regions a profile
# routes to is deliberately not listed here: AWS adds destination regions over time.
INFERENCE_PROFILE_PREFIXES = frozenset({"us", "us-gov", "eu", "apac", "jp", "au", "global"})

# Context keys this app no longer reads; passing one is an error rather than silently ignored.
REMOVED_KEYS = {
    "latency_alarm_p90_ms": (
        "SageMaker's ModelLatency is measured per request, and a bidirectional stream is one "
        "request lasting the whole session, so it measured how long callers stayed; the "
        "first-sound alarm replaced it: use -c first_sound_alarm_p95_ms=<ms> "
        "(docs/monitoring.md)"
    ),
    "bedrock_model_regions": (
        "the agent may now invoke the foundation model in any region, but only through the "
        "configured inference profile (IAM condition bedrock:InferenceProfileArn), so new "
        "destination regions need no configuration; drop the key"
    ),
}

_APP_NAME = APP_NAME_PATTERN
_PROVIDERS = ("cuda", "auto")
_INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9]+\.[a-z0-9]+$")
_VOICE = re.compile(r"^[a-z]{2}_[a-z0-9_]+$")
_MODEL_ID = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?$")
# S3 general purpose bucket naming rules (3-63 characters; see S3 "Bucket naming rules").
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_IPV4 = re.compile(r"^\d+\.\d+\.\d+\.\d+$")
_BUCKET_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
# Folder names under the weights prefix: no leading '/', no empty, '.' or '..' part.
_PREFIX_PART = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
_BUCKET_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", "--x-s3", "--table-s3", ".mrap")


class ConfigError(DeployCheckError):
    """A context value is missing or invalid."""


@dataclass(frozen=True)
class AlarmSettings:
    """Who is told, and when: the alarm topic's e-mail and the log-metric alarms' limits."""

    email: str | None = None  # None: the topic has no subscription
    first_sound_p95_ms: int = 1500
    refusal_minutes: int = 5


@dataclass(frozen=True)
class RolloutSettings:
    """Blue/green endpoint updates: how long the new fleet is watched, and how long the old
    one lives on after that (the streams it still carries)."""

    baking_s: int = 600
    termination_wait_s: int = 300


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
    weights_revision: str
    weights_bucket: str | None
    inference_ami_version: str
    startup_health_check_timeout_s: int
    model_data_download_timeout_s: int
    network_isolation: bool
    kokoro_provider: str = "cuda"
    voice_paused: bool = False
    allow_undocumented_region: bool = False
    alarms: AlarmSettings = AlarmSettings()
    rollout: RolloutSettings = RolloutSettings()
    max_sessions_per_instance: int = 32
    user_voices_prefix: str = ""  # under the revision's weights prefix; "" for none

    @property
    def metrics_namespace(self) -> str:
        """CloudWatch namespace of the metrics the stacks extract from the logs."""
        return self.app_name

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
        return self.bedrock_model_id.split(".", 1)[0] in INFERENCE_PROFILE_PREFIXES

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


def _bucket_name(value: Any) -> str | None:
    """'' or unset: the stack creates the bucket. Otherwise a valid S3 bucket name."""
    if value in (None, ""):
        return None
    name = str(value).strip()
    if (
        not _BUCKET.match(name)
        or ".." in name
        or _IPV4.match(name)
        or name.startswith(_BUCKET_RESERVED_PREFIXES)
        or name.endswith(_BUCKET_RESERVED_SUFFIXES)
    ):
        raise ConfigError(
            f"context 'weights_bucket' must be an S3 bucket name (3-63 lower-case letters, "
            f"digits, '.' or '-'), got {value!r}; use the WeightsBucketName output of the "
            "destroyed stack or the bucket the cleanup report lists"
        )
    return name


def _user_voices_prefix(value: Any) -> str:
    """'' or unset: none. Otherwise a folder under the weights prefix, returned ending in '/'."""
    if value in (None, ""):
        return ""
    text = str(value).strip()
    parts = text.removesuffix("/").split("/")
    if not all(_PREFIX_PART.match(part) and part.strip(".") for part in parts):
        raise ConfigError(
            "context 'user_voices_prefix' must be a folder under the weights prefix, like "
            f"'voices/' (letters, digits, '.', '_' or '-' between '/'; no leading '/', no "
            f"'..'), got {value!r}"
        )
    return "/".join(parts) + "/"


def _email(value: Any) -> str | None:
    """'' or unset: no subscription. Otherwise one e-mail address."""
    if value in (None, ""):
        return None
    address = str(value).strip()
    if not _EMAIL.match(address):
        raise ConfigError(
            f"context 'alarm_email' must be one e-mail address (or empty), got {value!r}"
        )
    return address


def _alarm_settings(get: Callable[[str], Any]) -> AlarmSettings:
    return AlarmSettings(
        email=_email(get("alarm_email")),
        first_sound_p95_ms=_int(
            "first_sound_alarm_p95_ms", get("first_sound_alarm_p95_ms"), 1, 60000
        ),
        refusal_minutes=_int("refusal_alarm_minutes", get("refusal_alarm_minutes"), 1, 60),
    )


def _rollout_settings(get: Callable[[str], Any]) -> RolloutSettings:
    # BlueGreenUpdatePolicy limits (SageMaker API reference): both waits 0-3600 s.
    return RolloutSettings(
        baking_s=_int("deployment_baking_s", get("deployment_baking_s"), 0, 3600),
        termination_wait_s=_int(
            "deployment_termination_wait_s", get("deployment_termination_wait_s"), 0, 3600
        ),
    )


def _model_id(get: Callable[[str], Any], region: str | None) -> str:
    """`bedrock_model_id` resolved for the region ('auto') and checked against it."""
    model_id = _str(
        "bedrock_model_id",
        resolve_model_id(str(get("bedrock_model_id")), region),
        _MODEL_ID,
        "'auto' or a Bedrock model or profile id",
    )
    if region is not None:
        try:
            check_profile_geography(model_id, region)
        except RegionConfigError as exc:
            raise ConfigError(str(exc)) from exc
    return model_id


def load_config(node: Node, region: str | None = None) -> AppConfig:
    """Read every context key (falling back to DEFAULTS) and validate it.

    ``region``: the concrete deploy region (None for environment-agnostic synth); settings
    that only work in some regions are resolved and checked against it.
    """

    def get(key: str) -> Any:
        value = node.try_get_context(key)
        return DEFAULTS[key] if value is None else value

    for key, why in REMOVED_KEYS.items():
        if node.try_get_context(key) is not None:
            raise ConfigError(f"context {key!r} is no longer used: {why}")

    app_name = _str("app_name", get("app_name"), _APP_NAME, APP_NAME_RULE)
    allow_undocumented = _bool("allow_undocumented_region", get("allow_undocumented_region"))
    if region is not None:
        check_region_name(region, allow_unknown=allow_undocumented)
    model_id = _model_id(get, region)
    provider = str(get("kokoro_provider")).strip().lower()
    if provider not in _PROVIDERS:
        raise ConfigError(
            f"context 'kokoro_provider' must be one of {', '.join(_PROVIDERS)}, got {provider!r}"
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
        weights_revision=str(get("weights_revision")),
        weights_bucket=_bucket_name(get("weights_bucket")),
        inference_ami_version=str(get("inference_ami_version")),
        startup_health_check_timeout_s=_int(
            "startup_health_check_timeout_s", get("startup_health_check_timeout_s"), 60, 3600
        ),
        model_data_download_timeout_s=_int(
            "model_data_download_timeout_s", get("model_data_download_timeout_s"), 60, 3600
        ),
        network_isolation=_bool("network_isolation", get("network_isolation")),
        kokoro_provider=provider,
        voice_paused=_bool("voice_paused", get("voice_paused")),
        allow_undocumented_region=allow_undocumented,
        alarms=_alarm_settings(get),
        rollout=_rollout_settings(get),
        max_sessions_per_instance=_int(
            "max_sessions_per_instance", get("max_sessions_per_instance"), 1, 1000
        ),
        user_voices_prefix=_user_voices_prefix(get("user_voices_prefix")),
    )
    if cfg.target_concurrency_per_instance >= cfg.max_sessions_per_instance:
        raise ConfigError(
            "context target_concurrency_per_instance "
            f"({cfg.target_concurrency_per_instance}) must be below max_sessions_per_instance "
            f"({cfg.max_sessions_per_instance}): the endpoint must scale out before its "
            "instances refuse callers (docs/capacity.md)"
        )
    if not cfg.min_instances <= cfg.initial_instance_count <= cfg.max_instances:
        raise ConfigError(
            "context must satisfy min_instances <= initial_instance_count <= max_instances, got "
            f"{cfg.min_instances} <= {cfg.initial_instance_count} <= {cfg.max_instances}"
        )
    return cfg

"""App configuration from cdk.json context, validated once with clear errors.

Every context key is one field of `AppConfig`, declared once with its default, its meaning
and its valid values (stacks/context.py); `load_config` reads them all the same way, and
`-c key=value` on the command line overrides cdk.json (command-line values arrive as strings,
so numbers and flags are parsed). The declarations are the one source: a test holds cdk.json's
context to them, and the table in docs/deploy.md is generated from them:

    python -m stacks.config   # prints the docs table (tests/stacks/test_context_keys.py)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from stacks.app_identity import APP_NAME_PATTERN, APP_NAME_RULE, DEFAULT_APP_NAME
from stacks.context import (
    BUCKET_NAME,
    EMAIL_ADDRESS,
    FLAG,
    FOLDER,
    ConfigError,
    context_key,
    context_table,
    declared_keys,
    free_text,
    integer,
    matching,
    one_of,
)
from stacks.regions import (
    RegionConfigError,
    check_profile_geography,
    check_region_name,
    resolve_model_id,
)

if TYPE_CHECKING:  # importing constructs starts the jsii runtime (Node.js, 0.7 s): the
    # weights fetcher and the cleanup read DEFAULTS without it
    from _typeshed import DataclassInstance
    from constructs import Node

__all__ = ["DEFAULTS", "AppConfig", "ConfigError", "load_config"]

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

_INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9]+\.[a-z0-9]+$")
_VOICE = re.compile(r"^[a-z]{2}_[a-z0-9_]+$")
# "auto" is resolved for the deploy region after reading (`_model_id`).
_MODEL_ID = re.compile(r"^(auto|[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?)$")
# BlueGreenUpdatePolicy limits (SageMaker API reference): both waits 0-3600 s.
_ROLLOUT_WAIT = integer(0, 3600)
_INSTANCES = integer(1, 20)
_SAGEMAKER_TIMEOUT = integer(60, 3600)


@dataclass(frozen=True)
class AppConfig:
    """The whole app's settings: each field is the context key of its name (stacks/context.py).

    The fields are in cdk.json's order, which is also the docs table's."""

    app_name: str = context_key(
        DEFAULT_APP_NAME,
        "Prefix of every name: stacks `<AppName>-Tts`/`-Agent`, endpoint `<app_name>-tts`, "
        "runtime `<app_name>_agent` (with `_`), tag `app=<app_name>`.",
        matching(APP_NAME_PATTERN, APP_NAME_RULE),
    )
    instance_type: str = context_key(
        "ml.g5.xlarge",
        "SageMaker instance type of the production variant (NVIDIA A10G, 24 GB).",
        matching(_INSTANCE_TYPE, "like 'ml.g5.xlarge'"),
    )
    initial_instance_count: int = context_key(
        1, "Instances at creation; must lie within min/max.", _INSTANCES
    )
    min_instances: int = context_key(1, "Autoscaling minimum.", _INSTANCES)
    max_instances: int = context_key(
        2, "Autoscaling maximum (check your instance quota).", _INSTANCES
    )
    target_concurrency_per_instance: int = context_key(
        19,
        "Target value of the `SageMakerVariantConcurrentRequestsPerModelHighResolution` "
        "target-tracking policy (bidirectional streams open per instance): 0.75 x the 26 "
        "streams a g5 is publicly known to hold "
        "([performance.md](performance.md#where-a-g5-runs-out-cpu-per-audio-second)); set it "
        "from `make loadtest` ([capacity.md](capacity.md)).",
        integer(1, 1000),
    )
    max_sessions_per_instance: int = context_key(
        32,
        "The container's session limit (`KOKORO_MAX_SESSIONS`); must be above "
        "`target_concurrency_per_instance` (a synth error otherwise), so the endpoint scales "
        "out before an instance refuses callers with `busy`.",
        integer(1, 1000),
    )
    voice: str = context_key(
        "af_heart",
        "Default Kokoro voice: `KOKORO_VOICE` in the container, `TTS_VOICE` in the agent.",
        matching(_VOICE, "a Kokoro voice name like 'af_heart'"),
    )
    bedrock_model_id: str = context_key(
        "auto",
        "Model or cross-region inference profile (`us.`, `eu.`, `apac.`, `jp.`, `au.`, "
        "`us-gov.`, `global.`) the agent streams from (`BEDROCK_MODEL_ID`); checked against "
        "the deploy region. `auto`: Claude Haiku 4.5 through the profile of the region's "
        "geography (see Deploy-time checks; `us.` in environment-agnostic synth). A profile "
        "needs no region list: see IAM below.",
        matching(_MODEL_ID, "'auto' or a Bedrock model or profile id"),
    )
    weights_revision: str = context_key(
        "kokoro-82m-v1.0-onnx-fp32",
        "Entry of `stacks/weights_manifest.json` to cache; lands under `kokoro/<revision>/`.",
        free_text("a revision of the manifest"),
    )
    weights_bucket: str | None = context_key(
        "",
        "Empty: the stack creates the retained weights bucket. A bucket name: the stack "
        'imports that bucket (the one a destroyed stack retained) instead; see "Reusing the '
        'weights bucket after destroy".',
        BUCKET_NAME,
    )
    inference_ami_version: str = context_key(
        "al2023-ami-sagemaker-inference-gpu-4-1",
        "SageMaker inference AMI of the variant: NVIDIA driver 580 (CUDA 13.0), which runs "
        'the image\'s CUDA 12.6 runtime; see "GPU driver vs image CUDA".',
        free_text("a SageMaker `InferenceAmiVersion`"),
    )
    startup_health_check_timeout_s: int = context_key(
        600,
        "`ContainerStartupHealthCheckTimeoutInSeconds`: the image is large and `/ping` "
        "answers 200 only after the model is loaded and a warm-up synthesis succeeded.",
        _SAGEMAKER_TIMEOUT,
    )
    model_data_download_timeout_s: int = context_key(
        600,
        "`ModelDataDownloadTimeoutInSeconds` for copying the weights prefix to `/opt/ml/model`.",
        _SAGEMAKER_TIMEOUT,
    )
    alarm_email: str | None = context_key(
        "",
        "One e-mail address subscribed to the alarm topic (SNS mails a confirmation link "
        "first); empty: the topic has no subscription "
        "([monitoring.md](monitoring.md#who-is-told-the-alarm-topic)).",
        EMAIL_ADDRESS,
    )
    first_sound_alarm_p95_ms: int = context_key(
        1500,
        "Threshold of the `FirstSoundP95` alarm: p95 of the server's time to first sound per "
        "session, per minute, above it in 3 of 5 minutes.",
        integer(1, 60000),
    )
    refusal_alarm_minutes: int = context_key(
        5,
        "Window of the `SessionsRefused` alarm: any refused session within it fires.",
        integer(1, 60),
    )
    deployment_baking_s: int = context_key(
        600,
        "Baking period of a blue/green endpoint update: how long the new fleet serves every "
        'new stream while the alarms watch it before the old fleet is let go ("Updates and '
        'live streams").',
        _ROLLOUT_WAIT,
    )
    deployment_termination_wait_s: int = context_key(
        300,
        "How long the old fleet lives after the baking period, for the streams it still carries.",
        _ROLLOUT_WAIT,
    )
    network_isolation: bool = context_key(
        True,
        "`EnableNetworkIsolation` of the SageMaker model: the container gets no outbound "
        "network (it never needs one). Set `false` only to debug.",
        FLAG,
    )
    kokoro_provider: str = context_key(
        "cuda",
        "`KOKORO_PROVIDER` of the container: `cuda` refuses to serve on the CPU; `auto` "
        "allows ONNX Runtime's CPU fallback (many times slower; debugging only).",
        one_of("cuda", "auto"),
    )
    voice_paused: bool = context_key(
        False,
        "`true`: deploy everything but the endpoint (no instance billing); the agent answers "
        "callers with a `voice_paused` error (see Pause and resume).",
        FLAG,
    )
    allow_undocumented_region: bool = context_key(
        False,
        "`true`: deploy to a region this app's lists do not cover: an unknown region code, "
        "AgentCore Runtime not documented there, or a resource type aws-cdk-lib does not "
        "list there (see Deploy-time checks for what CloudFormation still rejects).",
        FLAG,
    )
    user_voices_prefix: str = context_key(
        "",
        "A folder under the weights prefix (`voices/`: "
        "`s3://<weights bucket>/kokoro/<revision>/voices/`) whose voice files the server "
        "adds to the official voices (`KOKORO_USER_VOICES_DIR=/opt/ml/model/voices`); see "
        '"Your own voices". Empty: none.',
        FOLDER,
    )

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

    def settings_for[Settings: DataclassInstance](
        self, kind: type[Settings], **given: Any
    ) -> Settings:
        """A construct's settings dataclass: each field not in `given` is the setting (or
        property) of the same name here, so only what a construct names or derives
        differently is spelled out."""
        taken = {f.name: getattr(self, f.name) for f in fields(kind) if f.name not in given}
        return kind(**taken, **given)


CONTEXT_KEYS = declared_keys(AppConfig)
# What cdk.json holds for each key (the weights fetcher and the cleanup read it, without CDK).
# cdk.json is kept by hand, not generated: it also holds the CDK's feature flags, which the
# CDK CLI writes; tests/stacks/test_context_keys.py holds its context to these values.
DEFAULTS: dict[str, Any] = {name: key.default for name, key in CONTEXT_KEYS.items()}


def _model_id(configured: str, region: str | None) -> str:
    """`bedrock_model_id` resolved for the region ('auto') and checked against it."""
    model_id = resolve_model_id(configured, region)
    if region is not None:
        try:
            check_profile_geography(model_id, region)
        except RegionConfigError as exc:
            raise ConfigError(str(exc)) from exc
    return model_id


def _check_relations(cfg: AppConfig) -> None:
    """Rules between keys, each of which was valid on its own."""
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


def load_config(node: Node, region: str | None = None) -> AppConfig:
    """Read every context key (falling back to its declared default) and validate it.

    ``region``: the concrete deploy region (None for environment-agnostic synth); settings
    that only work in some regions are resolved and checked against it.
    """
    for key, why in REMOVED_KEYS.items():
        if node.try_get_context(key) is not None:
            raise ConfigError(f"context {key!r} is no longer used: {why}")
    values: dict[str, Any] = {}
    for name, declared in CONTEXT_KEYS.items():
        given = node.try_get_context(name)
        values[name] = declared.reader.parse(name, declared.default if given is None else given)
    if region is not None:
        check_region_name(region, allow_unknown=values["allow_undocumented_region"])
    values["bedrock_model_id"] = _model_id(values["bedrock_model_id"], region)
    cfg = AppConfig(**values)
    _check_relations(cfg)
    return cfg


if __name__ == "__main__":
    print(context_table(CONTEXT_KEYS))

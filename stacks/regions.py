"""What AWS documents per region, checked at synth against the region `cdk deploy` targets.

Synth runs with the account and region of the deploying credentials (the CDK CLI sets
CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION), so anything AWS would only reject at deploy time, or
worse on the first call, is caught here with the fix in the message. No CDK import here.
"""

from __future__ import annotations

from dataclasses import dataclass

# Bedrock cross-region (system-defined) inference profiles: the id prefix names the
# geography, and a profile can only be invoked from a source region of its geography
# ("Supported Regions and models for inference profiles", Bedrock user guide). `global.`
# profiles accept every commercial region. `jp.`/`au.` are sub-geographies of Asia Pacific.
PROFILE_SOURCE_REGION_PREFIXES: dict[str, tuple[str, ...]] = {
    "us": ("us-east-", "us-west-"),
    "us-gov": ("us-gov-",),
    "eu": ("eu-",),
    "apac": ("ap-",),
    "jp": ("ap-northeast-1", "ap-northeast-3"),
    "au": ("ap-southeast-2", "ap-southeast-4"),
}
INFERENCE_PROFILES_DOC = (
    "https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html"
)
# The default model when `bedrock_model_id` is "auto": Claude Haiku 4.5, whose model card
# lists `us.` and `eu.` geographic profiles and a `global.` profile.
AUTO_MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0"


class RegionConfigError(ValueError):
    """The configuration cannot work in the target region."""


@dataclass(frozen=True)
class DocumentedRegions:
    """A service's region list as read from its documentation page on a given date."""

    feature: str
    page: str
    checked: str  # ISO date the page was read
    regions: frozenset[str]

    def warning(self, region: str) -> str | None:
        if region in self.regions:
            return None
        return (
            f"{self.feature} is not documented for {region} on {self.page} (checked "
            f"{self.checked}; documented: {', '.join(sorted(self.regions))}). The deploy may "
            "fail or the service may answer errors there; if AWS has added the region since, "
            "deploy with -c allow_undocumented_region=true to silence this warning."
        )


# "Supported AWS Regions" of the AgentCore developer guide, row "AgentCore Runtime microVMs".
AGENTCORE_RUNTIME = DocumentedRegions(
    feature="Bedrock AgentCore Runtime",
    page="https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/agentcore-regions.html",
    checked="2026-12-02",
    regions=frozenset(
        {
            "us-east-1",
            "us-east-2",
            "us-west-1",
            "us-west-2",
            "eu-central-1",
            "eu-west-1",
            "eu-west-2",
            "eu-south-1",
            "eu-west-3",
            "eu-south-2",
            "eu-north-1",
            "ap-southeast-5",
            "ap-south-1",
            "ap-south-2",
            "ap-southeast-1",
            "ap-southeast-2",
            "ap-southeast-7",
            "ap-northeast-1",
            "ap-northeast-2",
            "ca-central-1",
            "sa-east-1",
            "us-gov-west-1",
        }
    ),
)

# SageMaker AI publishes no region table for bidirectional streaming: its API reference, the
# developer guide's container contract and the HTTP/2 SDK's endpoint rules (which resolve
# runtime.sagemaker.<region>.amazonaws.com:8443 in every region of the partition) name none
# (checked 2026-12-02). So there is nothing documented to warn against; `make smoke` is the
# check of the stream in a new region (docs/deploy.md).


def profile_prefix(model_id: str) -> str | None:
    """'eu' for 'eu.anthropic...', None for a plain (in-region) model id."""
    head = model_id.split(".", 1)[0]
    return head if head in PROFILE_SOURCE_REGION_PREFIXES or head == "global" else None


def resolve_model_id(configured: str, region: str | None) -> str:
    """'auto': Claude Haiku 4.5 through the profile of the region's geography (`us.`/`eu.`),
    the `global.` profile in other commercial regions, the plain model id in GovCloud; `us.`
    when the region is unknown (environment-agnostic synth, which no deploy uses). Anything
    else is taken as given."""
    if configured != "auto":
        return configured
    if region is None:
        return f"us.{AUTO_MODEL}"
    if region.startswith("us-gov-"):
        return AUTO_MODEL
    if region.startswith(("us-east-", "us-west-")):
        return f"us.{AUTO_MODEL}"
    if region.startswith("eu-"):
        return f"eu.{AUTO_MODEL}"
    return f"global.{AUTO_MODEL}"


def check_profile_geography(model_id: str, region: str) -> None:
    """An inference profile can only be called from a source region of its geography."""
    prefix = profile_prefix(model_id)
    if prefix is None:
        return
    if prefix == "global":
        if region.startswith(("us-gov-", "cn-", "us-iso")):
            raise RegionConfigError(
                f"bedrock_model_id {model_id!r} is a global inference profile, which "
                f"{region} (not a commercial region) cannot call; use the plain model id or "
                f"the {region.split('-')[0]}. profile (see {INFERENCE_PROFILES_DOC})"
            )
        return
    if region.startswith(PROFILE_SOURCE_REGION_PREFIXES[prefix]) and not (
        prefix == "us" and region.startswith("us-gov-")
    ):
        return
    foundation = model_id.split(".", 1)[1]
    fits = [
        p
        for p, starts in PROFILE_SOURCE_REGION_PREFIXES.items()
        if region.startswith(starts) and not (p == "us" and region.startswith("us-gov-"))
    ]
    suggestions = [f"{p}.{foundation}" for p in fits]
    if not region.startswith(("us-gov-", "cn-", "us-iso")):
        suggestions.append(f"global.{foundation}")
    suggestions.append(foundation)  # the plain id: the model in the stack's own region
    others = " or ".join(f"-c bedrock_model_id={s}" for s in suggestions[1:])
    raise RegionConfigError(
        f"bedrock_model_id {model_id!r} is a {prefix}. cross-region inference profile, which "
        f"only accepts calls from {prefix} regions, but the stack deploys to {region}: every "
        f"agent turn would fail. Deploy with -c bedrock_model_id={suggestions[0]} "
        f"(or {others}, where the model is offered in-region), or set "
        f'"bedrock_model_id": "auto" in cdk.json to follow the region '
        f"(see {INFERENCE_PROFILES_DOC})"
    )


def agentcore_warning(region: str) -> str | None:
    return AGENTCORE_RUNTIME.warning(region)

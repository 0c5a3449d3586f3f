"""What AWS documents per region, checked at synth against the region `cdk deploy` targets.

Synth runs with the account and region of the deploying credentials (the CDK CLI sets
CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION), so anything AWS would only reject at deploy time, or
worse on the first call, is caught here with the fix in the message. No CDK import here.
"""

from __future__ import annotations

from dataclasses import dataclass

from stacks.errors import DeployCheckError

# ---- AWS region codes --------------------------------------------------------------------
# Every region code there is, so a misspelt deploy region fails synth with the fix:
# CloudFormation's own validation in `cdk synth` (aws-cdk-lib's bundled
# @aws/cloudformation-validate) treats a region it does not know, such as `us-esat-1`, like
# one where every resource type exists, so a typo would otherwise reach the deploy.

# The `regions` of the `aws` (commercial), `aws-us-gov` and `aws-cn` partitions in the
# endpoint data of the AWS SDK for Python: botocore 1.44.8, botocore/data/endpoints.json,
# read 2026-12-03. tests/stacks/test_deploy_checks.py compares these lists with the installed
# botocore, so a botocore that knows a new region fails that test until it is added here.
REGIONS_SOURCE = "botocore 1.44.8 data/endpoints.json"
REGIONS_CHECKED = "2026-12-03"
COMMERCIAL_REGIONS = frozenset(
    {
        "af-south-1",
        "ap-east-1",
        "ap-east-2",
        "ap-northeast-1",
        "ap-northeast-2",
        "ap-northeast-3",
        "ap-south-1",
        "ap-south-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-3",
        "ap-southeast-4",
        "ap-southeast-5",
        "ap-southeast-6",
        "ap-southeast-7",
        "ca-central-1",
        "ca-west-1",
        "eu-central-1",
        "eu-central-2",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-1",
        "eu-west-2",
        "eu-west-3",
        "il-central-1",
        "me-central-1",
        "me-south-1",
        "mx-central-1",
        "sa-east-1",
        "us-east-1",
        "us-east-2",
        "us-west-1",
        "us-west-2",
    }
)
# Partitions this app's checks also know (bedrock profiles in GovCloud; cdk.json's
# target partitions include aws-cn).
GOVCLOUD_REGIONS = frozenset({"us-gov-east-1", "us-gov-west-1"})
CHINA_REGIONS = frozenset({"cn-north-1", "cn-northwest-1"})
KNOWN_REGIONS = COMMERCIAL_REGIONS | GOVCLOUD_REGIONS | CHINA_REGIONS


class UnknownRegionError(DeployCheckError):
    """The deploy region is not an AWS region code this app knows."""


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`: the
    optimal string alignment distance, so the typo `esat` is one edit from `east`."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def closest_regions(region: str, max_edits: int = 3) -> list[str]:
    """The known region codes fewest edits away from `region` (a typo's likely intent)."""
    scored = sorted((edit_distance(region.lower(), known), known) for known in KNOWN_REGIONS)
    best = scored[0][0]
    return [known for edits, known in scored if edits == best] if best <= max_edits else []


def check_region_name(region: str, *, allow_unknown: bool) -> None:
    """Refuse a region code that is not in KNOWN_REGIONS, naming the closest ones.

    `allow_unknown` (context `allow_undocumented_region`): a region AWS opened after
    REGIONS_CHECKED is let through.
    """
    if region in KNOWN_REGIONS or allow_unknown:
        return
    close = closest_regions(region)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise UnknownRegionError(
        f"the deploy region {region!r} (CDK_DEFAULT_REGION, from AWS_REGION, your profile or "
        f"`make synth REGION=...`) is not an AWS region: {hint}Set the region you meant. "
        f"Known regions come from {REGIONS_SOURCE} (checked {REGIONS_CHECKED}); if AWS has "
        "opened this region since, deploy with -c allow_undocumented_region=true."
    )


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


class RegionConfigError(DeployCheckError):
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
            "deploy with -c allow_undocumented_region=true, which silences this warning and "
            "sets aside the resource types aws-cdk-lib lists for the region (docs/deploy.md)."
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

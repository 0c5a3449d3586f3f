"""Plain data types shared by the finders, the report and the delete step."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from stacks.app_identity import APP_TAG_KEY as APP_TAG_KEY  # the CDK app's tag key

# Service names as shown in the report, in the order they are checked.
SERVICES = ("cloudformation", "sagemaker", "bedrock-agentcore", "s3", "ecr", "logs")

# Deletion order: a stack first (CloudFormation removes what it still owns), then the
# endpoint before its config before its model, then the rest.
DELETE_ORDER = (
    "stack",
    "endpoint",
    "endpoint-config",
    "model",
    "agent-runtime",
    "bucket",
    "image",
    "repository",
    "log-group",
)

CHECKED = "CHECKED"
UNCHECKED = "UNCHECKED"
# Finding fields the report (JSON) names otherwise.
_REPORT_NAMES = {"usd_per_hour": "est_usd_per_hour", "usd_per_month": "est_usd_per_month"}


@dataclass
class Finding:
    """One leftover resource of the app."""

    service: str
    kind: str
    name: str
    status: str
    detail: str
    billing: bool = False
    usd_per_hour: float | None = None
    usd_per_month: float | None = None
    deletable: bool = True
    note: str = ""
    ref: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Every field, in order; the report names the costs as the estimates they are."""
        return {_REPORT_NAMES.get(f.name, f.name): getattr(self, f.name) for f in fields(self)}


@dataclass
class ServiceCheck:
    """Whether a service could be fully inspected; reasons when it could not."""

    service: str
    status: str = CHECKED
    reasons: list[str] = field(default_factory=list)

    def unchecked(self, reason: str) -> None:
        self.status = UNCHECKED
        self.reasons.append(reason)


@dataclass
class Inventory:
    """Everything found in one scan."""

    app_name: str
    region: str
    account: str
    findings: list[Finding] = field(default_factory=list)
    checks: dict[str, ServiceCheck] = field(default_factory=dict)
    # Where this app's image tags came from (asset manifests, --image-tag), for the report.
    image_ref_sources: list[str] = field(default_factory=list)

    @property
    def unchecked(self) -> list[ServiceCheck]:
        return [c for c in self.checks.values() if c.status == UNCHECKED]

    @property
    def clean(self) -> bool:
        return not self.findings and not self.unchecked

"""CloudWatch log groups of the app.

SageMaker and AgentCore create their log groups themselves, so those never carry the app's
tag: they are matched by their service prefix plus a name derived from the app (the app-name
prefix, or the name/id of an endpoint or runtime found in this scan). Log groups the app
created itself are found by tag through the Resource Groups Tagging API.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from teardown import pricing
from teardown.aws import is_access_denied
from teardown.config import name_matches_app
from teardown.inventory.tags import is_app, tag_dict
from teardown.model import APP_TAG_KEY, Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope

SERVICE_PREFIXES = ("/aws/sagemaker/Endpoints/", "/aws/bedrock-agentcore/runtimes/")


def _name_matches(component: str, app_name: str, related: list[str]) -> bool:
    """SageMaker: the component is the endpoint name. AgentCore: '<runtime id>-<endpoint>'."""
    return name_matches_app(component, app_name) or any(
        component == name or component.startswith(f"{name}-") for name in related
    )


def _finding(group: dict[str, Any], how: str) -> Finding:
    stored = int(group.get("storedBytes", 0))
    return Finding(
        service="logs",
        kind="log-group",
        name=group["logGroupName"],
        status="exists",
        detail=f"{pricing.human_bytes(stored)} stored; matched by {how}",
        billing=stored > 0,
        usd_per_month=pricing.storage_usd_per_month(stored, pricing.LOGS_USD_PER_GB_MONTH),
        ref={"stored_bytes": stored},
    )


def _groups(logs: Any, prefix: str) -> list[dict[str, Any]]:
    return list(paginated(logs, "describe_log_groups", "logGroups", logGroupNamePrefix=prefix))


def _tagged_group_names(scope: Scope) -> list[str]:
    tagging = scope.clients.get("resourcegroupstaggingapi")
    names = []
    mappings = paginated(
        tagging,
        "get_resources",
        "ResourceTagMappingList",
        TagFilters=[{"Key": APP_TAG_KEY, "Values": [scope.app_name]}],
        # The service-level filter, then the ARN shape: "logs:log-group" is the documented
        # type, but a filter on the whole service is understood everywhere.
        ResourceTypeFilters=["logs"],
    )
    for mapping in mappings:
        arn = mapping["ResourceARN"]
        if ":log-group:" not in arn:
            continue
        name = arn.split(":log-group:", 1)[-1]
        names.append(name.removesuffix(":*"))
    return names


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    logs = scope.clients.get("logs")
    related = [f.name for f in earlier if f.kind == "endpoint"] + [
        f.ref["id"] for f in earlier if f.kind == "agent-runtime"
    ]
    found: dict[str, Finding] = {}

    for prefix in SERVICE_PREFIXES:
        for group in _groups(logs, prefix):
            component = group["logGroupName"][len(prefix) :]
            if not _name_matches(component, scope.app_name, related):
                continue
            arn = group.get("logGroupArn") or group["arn"].removesuffix(":*")
            tags = tag_dict(logs.list_tags_for_resource(resourceArn=arn).get("tags"))
            if APP_TAG_KEY in tags and not is_app(tags, scope.app_name):
                continue  # explicitly another app's
            found[group["logGroupName"]] = _finding(group, "service prefix and app name")

    try:
        tagged = _tagged_group_names(scope)
    except ClientError as exc:
        if not is_access_denied(exc):
            raise
        check.unchecked("log groups tagged with the app: tag:GetResources access denied")
        tagged = []
    for name in tagged:
        if name in found:
            continue
        for group in _groups(logs, name):
            if group["logGroupName"] == name:  # the tag index can lag behind deletions
                found[name] = _finding(group, f"tag {APP_TAG_KEY}={scope.app_name}")
    return list(found.values())

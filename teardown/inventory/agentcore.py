"""Bedrock AgentCore runtimes of the app (control plane: ``bedrock-agentcore-control``)."""

from __future__ import annotations

from teardown.inventory.tags import is_app, tag_dict
from teardown.model import Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    control = scope.clients.get("bedrock-agentcore-control")
    found: list[Finding] = []
    for runtime in paginated(control, "list_agent_runtimes", "agentRuntimes"):
        arn = runtime["agentRuntimeArn"]
        tags = tag_dict(control.list_tags_for_resource(resourceArn=arn).get("tags"))
        if not is_app(tags, scope.app_name):
            continue
        found.append(
            Finding(
                service="bedrock-agentcore",
                kind="agent-runtime",
                name=runtime.get("agentRuntimeName", runtime["agentRuntimeId"]),
                status=runtime.get("status", ""),
                detail=(
                    f"id {runtime['agentRuntimeId']}; billed per active session "
                    "(no idle compute charge), still reachable until deleted"
                ),
                ref={"id": runtime["agentRuntimeId"], "arn": arn},
            )
        )
    return found

"""CloudFormation stacks of the app that still exist (any status but DELETE_COMPLETE)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from teardown.aws import error_code
from teardown.config import name_matches_app
from teardown.inventory.tags import is_app, tag_dict
from teardown.model import APP_TAG_KEY, Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope


def _finding(scope: Scope, stack: dict[str, Any], explicit: bool) -> Finding:
    tagged = is_app(tag_dict(stack.get("Tags")), scope.app_name)
    deletable = tagged or explicit
    note = (
        ""
        if deletable
        else (
            f"not tagged {APP_TAG_KEY}={scope.app_name}: not deleted here; "
            "run cdk destroy or name it with --stack"
        )
    )
    return Finding(
        service="cloudformation",
        kind="stack",
        name=stack["StackName"],
        status=stack["StackStatus"],
        detail=stack.get("StackStatusReason", "") or "stack still exists",
        deletable=deletable,
        note=note,
        ref={"stack_id": stack["StackId"], "tagged": tagged},
    )


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    cfn = scope.clients.get("cloudformation")
    if scope.stack_names:
        found: list[Finding] = []
        for name in scope.stack_names:
            try:
                stacks = cfn.describe_stacks(StackName=name)["Stacks"]
            except ClientError as exc:
                if error_code(exc) == "ValidationError" and "does not exist" in str(exc):
                    continue
                raise
            found.extend(_finding(scope, s, explicit=True) for s in stacks)
        return found

    listed: list[Finding] = []
    for stack in paginated(cfn, "describe_stacks", "Stacks"):
        if stack["StackStatus"] == "DELETE_COMPLETE":
            continue
        tags = tag_dict(stack.get("Tags"))
        if is_app(tags, scope.app_name):
            listed.append(_finding(scope, stack, explicit=False))
        elif APP_TAG_KEY in tags:
            continue  # another app's stack, even if its name looks like ours
        elif name_matches_app(stack["StackName"], scope.app_name):
            listed.append(_finding(scope, stack, explicit=False))
    return listed

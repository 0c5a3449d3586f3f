"""The execution role an AWS service assumes to run this app's code (SageMaker, AgentCore)."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from constructs import Construct


def service_role(
    scope: Construct, service: str, description: str, **conditions: dict[str, Any]
) -> iam.Role:
    """`ExecutionRole` of `scope`, trusted by `service` acting for this account only (the
    confused-deputy guard aws:SourceAccount), plus any further trust `conditions`."""
    return iam.Role(
        scope,
        "ExecutionRole",
        assumed_by=iam.ServicePrincipal(
            service,
            conditions={
                "StringEquals": {"aws:SourceAccount": Stack.of(scope).account},
                **conditions,
            },
        ),
        description=description,
    )

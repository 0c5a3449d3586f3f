"""IAM resources for invoking one Bedrock model or cross-region inference profile."""

from __future__ import annotations

from aws_cdk import Aws, Stack
from constructs import Construct


def bedrock_model_arns(
    scope: Construct, model_id: str, foundation_model_id: str, regions: tuple[str, ...]
) -> list[str]:
    """ARNs that allow invoking exactly the configured model.

    For an inference profile (e.g. 'us.anthropic...'): the profile ARN in this account and
    region, plus the foundation model ARN in each region the profile routes requests to -
    Bedrock authorizes both. For a plain model id: the foundation model in this region.
    """
    stack = Stack.of(scope)
    if not regions:
        return [
            stack.format_arn(
                service="bedrock",
                account="",
                resource="foundation-model",
                resource_name=foundation_model_id,
            )
        ]
    arns = [
        stack.format_arn(service="bedrock", resource="inference-profile", resource_name=model_id)
    ]
    arns += [
        f"arn:{Aws.PARTITION}:bedrock:{region}::foundation-model/{foundation_model_id}"
        for region in regions
    ]
    return arns

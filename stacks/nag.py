"""cdk-nag acknowledgements through CDK's Validations API (cdk-nag 3.x)."""

from __future__ import annotations

from aws_cdk import Acknowledgment, CfnResource, Stack, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, rule_id: str, reason: str) -> None:
    """Acknowledge one cdk-nag rule on a construct and everything below it, with a reason."""
    if len(reason) < 40:
        raise ValueError(f"acknowledgement of {rule_id} needs a specific reason, got {reason!r}")
    Validations.of(scope).acknowledge(Acknowledgment(id=rule_id, reason=reason))


def iam5(resource: str) -> str:
    """Id of one AwsSolutions-IAM5 finding; cdk-nag 3 acknowledges wildcard findings one by one."""
    return f"AwsSolutions-IAM5[Resource::{resource}]"


def arn_of(resource: IConstruct) -> str:
    """How cdk-nag renders `Fn::GetAtt [<logical id>, Arn]` of a construct's CFN resource."""
    cfn = resource.node.default_child if not isinstance(resource, CfnResource) else resource
    if not isinstance(cfn, CfnResource):
        raise TypeError(f"{resource.node.path} has no CloudFormation resource")
    stack = Stack.of(cfn)
    return f"<{stack.resolve(stack.get_logical_id(cfn))}.Arn>"

"""cdk-nag acknowledgements through CDK's Validations API (cdk-nag 3.x)."""

from __future__ import annotations

from typing import Any

from aws_cdk import Acknowledgment, Stack, Validations
from constructs import IConstruct

FOUNDATION_MODEL_ANY_REGION_REASON = (
    "The region wildcard is on the one configured foundation model only, and the statement is "
    "conditioned on bedrock:InferenceProfileArn equal to the configured inference profile: "
    "the model can be invoked only through that profile, in whichever destination region AWS "
    "routes the request to. Listing the regions would turn every region AWS adds to the "
    "profile into AccessDenied at run time."
)


def acknowledge(scope: IConstruct, rule_id: str, reason: str) -> None:
    """Acknowledge one cdk-nag rule on a construct and everything below it, with a reason."""
    if len(reason) < 40:
        raise ValueError(f"acknowledgement of {rule_id} needs a specific reason, got {reason!r}")
    Validations.of(scope).acknowledge(Acknowledgment(id=rule_id, reason=reason))


def iam5(resource: str) -> str:
    """Id of one AwsSolutions-IAM5 finding; cdk-nag 3 acknowledges wildcard findings one by one."""
    return f"AwsSolutions-IAM5[Resource::{resource}]"


def nag_rendering(scope: IConstruct, value: str) -> str:
    """How cdk-nag prints a (possibly tokenized) string in a finding id.

    cdk-nag writes `Ref X` as `<X>`, `Fn::GetAtt [X, Arn]` as `<X.Arn>` and joins `Fn::Join`
    parts, so an acknowledgement can name an ARN without copying a generated logical id.
    """
    return _render(Stack.of(scope).resolve(value))


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref":
            return f"<{arg}>"
        if fn == "Fn::GetAtt":
            return f"<{arg[0]}.{arg[1]}>"
        if fn == "Fn::Join":
            separator, parts = arg
            return str(separator).join(_render(part) for part in parts)
    raise ValueError(f"cannot render {value!r} the way cdk-nag does")

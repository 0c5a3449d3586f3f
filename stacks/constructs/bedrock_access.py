"""IAM statements for invoking one Bedrock model or cross-region inference profile."""

from __future__ import annotations

from aws_cdk import Aws, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

# Strands streams with ConverseStream, which IAM authorizes as InvokeModelWithResponseStream;
# InvokeModel covers the non-streaming Converse/InvokeModel calls.
INVOKE_ACTIONS = ("bedrock:InvokeModelWithResponseStream", "bedrock:InvokeModel")
# Condition key Bedrock sets when a foundation model is invoked through an inference profile
# (Service Authorization Reference, "Actions, resources, and condition keys for Amazon Bedrock").
PROFILE_CONDITION_KEY = "bedrock:InferenceProfileArn"


def any_region_foundation_model_arn(foundation_model_id: str) -> str:
    """The foundation model in every region: where a profile routes is decided by AWS."""
    return f"arn:{Aws.PARTITION}:bedrock:*::foundation-model/{foundation_model_id}"


def bedrock_invoke_statements(
    scope: Construct, model_id: str, foundation_model_id: str, *, is_profile: bool
) -> list[iam.PolicyStatement]:
    """Statements that allow invoking exactly the configured model.

    For a cross-region inference profile (e.g. 'us.anthropic...'), Bedrock authorizes both the
    profile ARN and the foundation model in the destination region it picks. The destination
    regions are not listed: a region AWS adds to the profile would otherwise turn into
    AccessDenied. Instead the foundation model is allowed in any region, but only when the call
    comes through this one profile. For a plain model id: the foundation model in this region.
    """
    stack = Stack.of(scope)
    if not is_profile:
        model = stack.format_arn(
            service="bedrock", account="", resource="foundation-model", resource_name=model_id
        )
        return [
            iam.PolicyStatement(
                sid="InvokeBedrockModel", actions=[*INVOKE_ACTIONS], resources=[model]
            )
        ]
    profile = stack.format_arn(
        service="bedrock", resource="inference-profile", resource_name=model_id
    )
    return [
        iam.PolicyStatement(
            sid="InvokeBedrockInferenceProfile", actions=[*INVOKE_ACTIONS], resources=[profile]
        ),
        iam.PolicyStatement(
            sid="InvokeFoundationModelThroughProfile",
            actions=[*INVOKE_ACTIONS],
            resources=[any_region_foundation_model_arn(foundation_model_id)],
            conditions={"StringEquals": {PROFILE_CONDITION_KEY: profile}},
        ),
    ]

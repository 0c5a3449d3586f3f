"""Bedrock AgentCore runtime for the voice agent, with a least-privilege execution role."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aws_cdk import IgnoreMode, Stack
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from constructs import Construct

from stacks.constructs.bedrock_access import (
    any_region_foundation_model_arn,
    bedrock_invoke_statements,
)
from stacks.constructs.service_role import service_role
from stacks.nag import FOUNDATION_MODEL_ANY_REGION_REASON, acknowledge, iam5, nag_rendering


def _baseline_wildcards(scope: Construct) -> tuple[tuple[str, str], ...]:
    """Wildcard resources of the execution-role baseline that AgentCore documents and that the
    aws-cdk-lib Runtime construct adds; each acknowledged with why it cannot be narrower.

    The ARNs are built from the stack's own partition, region and account and rendered the
    way cdk-nag prints them, so one acknowledgement matches both the environment-agnostic
    form (`<AWS::Region>`) and the concrete one `cdk deploy` synthesizes (`us-east-1`).
    """
    stack = Stack.of(scope)
    prefix = f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:"
    identity = (
        f"arn:{stack.partition}:bedrock-agentcore:{stack.region}:{stack.account}:"
        "workload-identity-directory/default/workload-identity/*"
    )
    return (
        (
            "*",
            "X-Ray trace APIs, cloudwatch:PutMetricData (limited by condition to the "
            "bedrock-agentcore namespace) and ecr:GetAuthorizationToken have no resource-level "
            "permissions.",
        ),
        (
            nag_rendering(scope, f"{prefix}/aws/bedrock-agentcore/runtimes/*"),
            "AgentCore creates the runtime's log groups under this path with a generated "
            "runtime id suffix that is unknown before deployment.",
        ),
        (
            nag_rendering(scope, f"{prefix}/aws/bedrock-agentcore/runtimes/*:log-stream:*"),
            "Log streams of the runtime's own log groups, whose names carry the generated "
            "runtime id.",
        ),
        (
            nag_rendering(scope, f"{prefix}*"),
            "logs:DescribeLogGroups is a list operation that IAM evaluates on the account's "
            "log-group:* resource; the AgentCore runtime calls it at start-up.",
        ),
        (
            nag_rendering(scope, identity),
            "The runtime's workload identity is created by AgentCore with a generated name; "
            "the token actions are limited to the account's default workload identity "
            "directory.",
        ),
    )


CLIENT_DIR = "clients/kokoro_stream"


def agent_image_context(agent_dir_name: str) -> list[str]:
    """dockerignore rules: everything out but the agent and the protocol client's sources."""
    keep = [agent_dir_name, CLIENT_DIR]
    rules = ["*", *(f"!{path}" for path in keep), "!clients"]
    return [*rules, "**/__pycache__", "**/*.egg-info", "**/.mypy_cache", "**/build"]


@dataclass(frozen=True)
class AgentRuntimeSettings:
    runtime_name: str
    agent_dir: Path
    endpoint_name: str
    endpoint_arn: str
    voice: str
    bedrock_model_id: str
    bedrock_foundation_model_id: str
    bedrock_model_is_profile: bool
    voice_paused: bool


class VoiceAgentRuntime(Construct):
    """AgentCore runtime (IAM auth) built from agent/ as a linux/arm64 image.

    The aws-cdk-lib L2 ``Runtime`` adds the baseline permissions AgentCore documents for an
    execution role (image pull from the asset repository, the runtime's log groups, X-Ray,
    metrics in the bedrock-agentcore namespace, workload access tokens) to the role given
    here; this construct adds only the endpoint and model the agent calls.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, settings: AgentRuntimeSettings
    ) -> None:
        super().__init__(scope, construct_id)
        self.role = self._execution_role(settings)
        self.runtime = self._runtime(settings)
        for resource, why in _baseline_wildcards(self):
            acknowledge(self.role, iam5(resource), why)
        if settings.bedrock_model_is_profile:
            acknowledge(
                self.role,
                iam5(
                    nag_rendering(
                        self, any_region_foundation_model_arn(settings.bedrock_foundation_model_id)
                    )
                ),
                FOUNDATION_MODEL_ANY_REGION_REASON,
            )

    def _execution_role(self, settings: AgentRuntimeSettings) -> iam.Role:
        """Trusted by AgentCore for this account; may call the one endpoint and the one model."""
        role = service_role(
            self,
            "bedrock-agentcore.amazonaws.com",
            "Voice agent runtime: stream TTS from one endpoint, one Bedrock model",
            ArnLike={
                "aws:SourceArn": Stack.of(self).format_arn(
                    service="bedrock-agentcore", resource="*"
                )
            },
        )
        role.add_to_policy(
            iam.PolicyStatement(
                sid="InvokeTtsEndpoint",
                actions=[
                    "sagemaker:InvokeEndpointWithBidirectionalStream",
                    "sagemaker:InvokeEndpoint",
                ],
                resources=[settings.endpoint_arn],
            )
        )
        for statement in bedrock_invoke_statements(
            self,
            settings.bedrock_model_id,
            settings.bedrock_foundation_model_id,
            is_profile=settings.bedrock_model_is_profile,
        ):
            role.add_to_policy(statement)
        return role

    def _runtime(self, settings: AgentRuntimeSettings) -> agentcore.Runtime:
        stack = Stack.of(self)
        # The image needs the agent and the protocol client it imports (clients/kokoro_stream,
        # its own distribution). The build context is the folder holding both, cut down to
        # them, so nothing else of the repository reaches the image or the asset's hash.
        artifact = agentcore.AgentRuntimeArtifact.from_asset(
            str(settings.agent_dir.parent),
            file=f"{settings.agent_dir.name}/Dockerfile",
            platform=ecr_assets.Platform.LINUX_ARM64,
            ignore_mode=IgnoreMode.DOCKER,
            exclude=agent_image_context(settings.agent_dir.name),
        )
        return agentcore.Runtime(
            self,
            "Runtime",
            runtime_name=settings.runtime_name,
            agent_runtime_artifact=artifact,
            execution_role=self.role,
            authorizer_configuration=agentcore.RuntimeAuthorizerConfiguration.using_iam(),
            description="Voice agent: LLM text streamed sentence by sentence into Kokoro TTS",
            # The region is passed explicitly: the agent refuses to start without one, and
            # Strands would otherwise fall back to us-west-2. Both names, because boto3/botocore
            # read AWS_DEFAULT_REGION and most other SDKs read AWS_REGION (see docs/deploy.md).
            environment_variables={
                "AWS_REGION": stack.region,
                "AWS_DEFAULT_REGION": stack.region,
                "TTS_ENDPOINT_NAME": settings.endpoint_name,
                "TTS_VOICE": settings.voice,
                "BEDROCK_MODEL_ID": settings.bedrock_model_id,
                # The TTS stack deploys no endpoint while paused; the agent then answers every
                # caller with a `voice_paused` error instead of calling the model.
                "TTS_PAUSED": "true" if settings.voice_paused else "false",
            },
        )

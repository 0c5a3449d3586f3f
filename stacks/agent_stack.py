"""Agent runtime stack: the AgentCore voice agent that calls the TTS endpoint, and the
metrics of its per-turn log records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from stacks.config import AppConfig
from stacks.constructs.agent_runtime import AgentRuntimeSettings, VoiceAgentRuntime
from stacks.constructs.service_logs import LogMetricFilters, service_log_retention
from stacks.constructs.tts_endpoint import endpoint_arn
from stacks.log_metrics import AGENT_METRICS


class AgentStack(Stack):
    """Takes the endpoint name from the TTS stack through its constructor (no named exports).

    The endpoint name is a plain string fixed by the app name, and the ARN is formatted in
    this stack's own account and region, so the two stacks share no CloudFormation exports.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AppConfig,
        agent_dir: Path,
        endpoint_name: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        agent = VoiceAgentRuntime(
            self,
            "VoiceAgent",
            settings=AgentRuntimeSettings(
                runtime_name=config.runtime_name,
                agent_dir=agent_dir,
                endpoint_name=endpoint_name,
                endpoint_arn=endpoint_arn(self, endpoint_name),
                voice=config.voice,
                bedrock_model_id=config.bedrock_model_id,
                bedrock_foundation_model_id=config.bedrock_foundation_model_id,
                bedrock_model_is_profile=config.bedrock_model_is_profile,
                voice_paused=config.voice_paused,
            ),
        )
        # Where AgentCore writes the runtime's stdout (the aws-cdk-lib Runtime names it the
        # same way): kept by the stack so the turn metrics have a group to filter.
        group_name = agent.runtime.application_log_group.log_group_name
        retention = service_log_retention(self, "RuntimeLogs", group_name)
        LogMetricFilters(
            self,
            "LogMetrics",
            group_name=group_name,
            namespace=config.metrics_namespace,
            metrics=AGENT_METRICS,
            group_exists=retention,
        )
        CfnOutput(self, "RuntimeArn", value=agent.runtime.agent_runtime_arn)
        CfnOutput(self, "RuntimeLogGroup", value=group_name)
        CfnOutput(self, "RuntimeExecutionRoleArn", value=agent.role.role_arn)

"""Agent runtime stack: the AgentCore voice agent that calls the TTS endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from stacks.config import AppConfig
from stacks.constructs.agent_runtime import AgentRuntimeSettings, VoiceAgentRuntime
from stacks.constructs.tts_endpoint import endpoint_arn


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
        CfnOutput(self, "RuntimeArn", value=agent.runtime.agent_runtime_arn)
        CfnOutput(self, "RuntimeExecutionRoleArn", value=agent.role.role_arn)

"""TTS endpoint stack: image, weights cache, SageMaker endpoint, autoscaling, alarms, the
log metrics of the server and the dashboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ecr_assets as ecr_assets
from constructs import Construct

from stacks.config import AppConfig
from stacks.constructs.alarm_topic import AlarmTopic
from stacks.constructs.dashboard import DashboardSources, VoiceDashboard
from stacks.constructs.endpoint_alarms import AlarmTargets, EndpointAlarms
from stacks.constructs.endpoint_scaling import EndpointAutoscaling
from stacks.constructs.service_logs import LogMetricFilters
from stacks.constructs.tts_endpoint import EndpointSettings, TtsEndpoint, blue_green_update
from stacks.constructs.weights_cache import WeightsCache
from stacks.dockerfile_guard import require_bidi_label
from stacks.log_metrics import SERVER_METRICS
from stacks.weights_manifest import load_revision


class TtsStack(Stack):
    """Wires the TTS constructs together; all settings come from AppConfig."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AppConfig,
        container_dir: Path,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        require_bidi_label(container_dir / "Dockerfile")
        revision = load_revision(config.weights_revision)

        # Built and pushed by `cdk deploy` only; synth just records the asset.
        image = ecr_assets.DockerImageAsset(
            self,
            "KokoroImage",
            directory=str(container_dir),
            platform=ecr_assets.Platform.LINUX_AMD64,
            exclude=["**/__pycache__", "**/*.pyc", "**/.pytest_cache"],
        )
        weights = WeightsCache(
            self, "Weights", revision=revision, existing_bucket_name=config.weights_bucket
        )
        tts = TtsEndpoint(
            self,
            "Tts",
            settings=config.settings_for(
                EndpointSettings,
                provider=config.kokoro_provider,
                create_endpoint=not config.voice_paused,
                max_sessions=config.max_sessions_per_instance,
            ),
            image=image,
            bucket=weights.bucket,
            weights_prefix=weights.prefix,
            model_data_url=weights.model_data_url,
        )
        self.endpoint_name = config.endpoint_name
        self.endpoint_arn = tts.endpoint_arn
        self._monitor(config, tts)
        self._outputs(config, tts, weights, image)

    def _outputs(
        self,
        config: AppConfig,
        tts: TtsEndpoint,
        weights: WeightsCache,
        image: ecr_assets.DockerImageAsset,
    ) -> None:
        """What the smoke check, the cleanup and the docs read from the deployed stack."""
        CfnOutput(
            self,
            "EndpointName",
            value=tts.endpoint.attr_endpoint_name if tts.endpoint else config.endpoint_name,
        )
        CfnOutput(self, "EndpointArn", value=tts.endpoint_arn)
        # "true" while the stack is deployed with -c voice_paused=true (no endpoint billing).
        CfnOutput(self, "VoicePaused", value=str(config.voice_paused).lower())
        CfnOutput(self, "WeightsBucketName", value=weights.bucket.bucket_name)
        CfnOutput(self, "WeightsS3Uri", value=weights.model_data_url)
        CfnOutput(self, "ImageUri", value=image.image_uri)

    def _monitor(self, config: AppConfig, tts: TtsEndpoint) -> None:
        """The alarm topic, the server's log metrics, the alarms and the dashboard."""
        topic = AlarmTopic(self, "AlarmTopic", email=config.alarm_email)
        # The log metrics stay while the voice is paused: the log group does too.
        server_metrics = LogMetricFilters(
            self,
            "LogMetrics",
            group_name=tts.log_group_name,
            namespace=config.metrics_namespace,
            metrics=SERVER_METRICS,
            group_exists=tts.log_retention,
        )
        alarms = self._endpoint_watch(config, tts, server_metrics, topic) if tts.endpoint else ()
        dashboard = VoiceDashboard(
            self,
            "Dashboard",
            # Dashboards are global to an account: the region keeps two deployments apart.
            name=f"{config.app_name}-{self.region}",
            sources=config.settings_for(
                DashboardSources, endpoint_log_group=tts.log_group_name, alarms=alarms
            ),
        )
        CfnOutput(self, "DashboardUrl", value=dashboard.url)
        CfnOutput(self, "AlarmTopicArn", value=topic.topic.topic_arn)

    def _endpoint_watch(
        self,
        config: AppConfig,
        tts: TtsEndpoint,
        server_metrics: LogMetricFilters,
        topic: AlarmTopic,
    ) -> tuple[cloudwatch.Alarm, ...]:
        """Scaling, alarms and the rollout of updates act on the endpoint: they exist only
        while it does."""
        assert tts.endpoint is not None
        scaling = EndpointAutoscaling(
            self,
            "Autoscaling",
            endpoint_name=config.endpoint_name,
            variant_name=tts.variant_name,
            min_instances=config.min_instances,
            max_instances=config.max_instances,
            target_concurrency=config.target_concurrency_per_instance,
        )
        scaling.node.add_dependency(tts.endpoint)
        alarms = EndpointAlarms(
            self,
            "Alarms",
            targets=AlarmTargets(config.endpoint_name, server_metrics, topic.topic),
            first_sound_p95_ms=config.first_sound_alarm_p95_ms,
            refusal_minutes=config.refusal_alarm_minutes,
        )
        tts.endpoint.deployment_config = blue_green_update(
            baking_s=config.deployment_baking_s,
            termination_wait_s=config.deployment_termination_wait_s,
            startup_s=config.startup_health_check_timeout_s + config.model_data_download_timeout_s,
            rollback_alarm_names=[alarm.alarm_name for alarm in alarms.all],
        )
        return alarms.all

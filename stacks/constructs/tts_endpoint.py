"""SageMaker model, endpoint config and endpoint for the Kokoro TTS container."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

from stacks.constructs.service_logs import service_log_retention
from stacks.constructs.service_role import service_role
from stacks.dockerfile_guard import BIDI_LABEL_KEY
from stacks.nag import acknowledge, iam5, nag_rendering

VARIANT_NAME = "AllTraffic"
MODEL_DIR = "/opt/ml/model"
# SageMaker writes the container's stdout/stderr here; the name is fixed by SageMaker.
LOG_GROUP_PREFIX = "/aws/sagemaker/Endpoints/"
# Namespace of the invocation metrics (Invocations, errors, ConcurrentRequestsPerModel).
INVOCATION_METRICS_NAMESPACE = "AWS/SageMaker"
# Namespace of the endpoint instance metrics (CPU/GPU/memory/disk) SageMaker publishes.
ENDPOINT_METRICS_NAMESPACE = "/aws/sagemaker/Endpoints"


@dataclass(frozen=True)
class EndpointSettings:
    """What the endpoint is made of; every value comes from AppConfig (stacks/config.py
    declares their defaults)."""

    endpoint_name: str
    instance_type: str
    initial_instance_count: int
    inference_ami_version: str
    startup_health_check_timeout_s: int
    model_data_download_timeout_s: int
    voice: str
    network_isolation: bool
    # "cuda": the server refuses to serve unless ONNX Runtime runs on the GPU.
    provider: str
    # False (voice paused): model and endpoint config stay, the billing endpoint is not made.
    create_endpoint: bool
    max_sessions: int  # the container's admission limit (KOKORO_MAX_SESSIONS)
    # A folder under the weights prefix ('voices/'): its voice files arrive with the weights
    # and the server adds them to the official ones (KOKORO_USER_VOICES_DIR). "": none.
    user_voices_prefix: str


def endpoint_arn(scope: Construct, endpoint_name: str) -> str:
    """ARN of a SageMaker endpoint in the scope's account and region (names are lower-cased)."""
    return Stack.of(scope).format_arn(
        service="sagemaker", resource="endpoint", resource_name=endpoint_name.lower()
    )


def endpoint_metric(
    endpoint_name: str,
    metric_name: str,
    statistic: str,
    namespace: str = INVOCATION_METRICS_NAMESPACE,
    period: Duration | None = None,
) -> cloudwatch.Metric:
    """A metric SageMaker publishes for the endpoint's variant (invocations or instances)."""
    return cloudwatch.Metric(
        namespace=namespace,
        metric_name=metric_name,
        dimensions_map={"EndpointName": endpoint_name, "VariantName": VARIANT_NAME},
        statistic=statistic,
        period=period or Duration.minutes(1),
    )


def log_group_name(endpoint_name: str) -> str:
    return f"{LOG_GROUP_PREFIX}{endpoint_name}"


def user_voices_dir(prefix: str) -> str:
    """Where the container finds the voice files under `prefix` of the weights prefix."""
    return f"{MODEL_DIR}/{prefix.rstrip('/')}"


def _environment(settings: EndpointSettings) -> dict[str, str]:
    environment = {
        "KOKORO_MODEL_DIR": MODEL_DIR,
        "KOKORO_VOICE": settings.voice,
        # The server exits at start-up when ONNX Runtime would run on the CPU
        # (a g5 answering /ping many times slower than it should); "auto" allows it.
        "KOKORO_PROVIDER": settings.provider,
        "KOKORO_CUDNN_CONV_ALGO_SEARCH": "HEURISTIC",
        # Above the scaling target: scaling starts before anyone is refused.
        "KOKORO_MAX_SESSIONS": str(settings.max_sessions),
    }
    if settings.user_voices_prefix:
        # CloudFormation's AWS::SageMaker::Model has no AdditionalModelDataSources (the
        # CreateModel API's second channel), so the voices travel in the weights' own S3
        # prefix: SageMaker copies all of it to /opt/ml/model, and the execution role already
        # reads exactly that prefix.
        environment["KOKORO_USER_VOICES_DIR"] = user_voices_dir(settings.user_voices_prefix)
    return environment


class TtsEndpoint(Construct):
    """Execution role, log group retention, CfnModel, CfnEndpointConfig and CfnEndpoint.

    The model reads the weights as uncompressed S3 model data (S3Prefix, CompressionType
    None), which SageMaker copies to /opt/ml/model before starting the container.

    The endpoint's log group has a name SageMaker fixes and creates itself, so it is kept by
    `LogRetention` rather than being a stack resource (service_logs.py says why).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: EndpointSettings,
        image: ecr_assets.DockerImageAsset,
        bucket: s3.IBucket,
        weights_prefix: str,
        model_data_url: str,
    ) -> None:
        super().__init__(scope, construct_id)
        self.endpoint_name = settings.endpoint_name
        self.variant_name = VARIANT_NAME
        self.log_group_name = log_group_name(settings.endpoint_name)
        self.log_retention = service_log_retention(self, "EndpointLogs", self.log_group_name)
        self.role = self._execution_role(image, bucket, weights_prefix)
        self.model = self._model(settings, image, model_data_url)
        self.endpoint_config = self._endpoint_config(settings)
        self.endpoint: sagemaker.CfnEndpoint | None = None
        if settings.create_endpoint:
            self.endpoint = sagemaker.CfnEndpoint(
                self,
                "Endpoint",
                endpoint_name=settings.endpoint_name,
                endpoint_config_name=self.endpoint_config.attr_endpoint_config_name,
            )
            self.endpoint.node.add_dependency(self.log_retention)
        self.endpoint_arn = endpoint_arn(self, settings.endpoint_name)
        acknowledge(
            self.model,
            "AwsSolutions-SM1",
            (
                "The container needs no network: it reads its weights from /opt/ml/model, which "
                "SageMaker fills from S3, and by default runs with network isolation; a VPC "
                "would add NAT/endpoint cost without protecting anything."
            ),
        )

    def _model(
        self, settings: EndpointSettings, image: ecr_assets.DockerImageAsset, model_data_url: str
    ) -> sagemaker.CfnModel:
        model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=self.role.role_arn,
            # The container never calls out at run time (weights come from S3 via SageMaker).
            enable_network_isolation=settings.network_isolation,
            primary_container=sagemaker.CfnModel.ContainerDefinitionProperty(
                image=image.image_uri,
                mode="SingleModel",
                model_data_source=sagemaker.CfnModel.ModelDataSourceProperty(
                    s3_data_source=sagemaker.CfnModel.S3DataSourceProperty(
                        s3_uri=model_data_url,
                        s3_data_type="S3Prefix",
                        compression_type="None",
                    )
                ),
                environment=_environment(settings),
            ),
        )
        # The role's policy must exist before SageMaker validates image and data access.
        model.node.add_dependency(self.role)
        return model

    def _endpoint_config(self, settings: EndpointSettings) -> sagemaker.CfnEndpointConfig:
        config = sagemaker.CfnEndpointConfig(
            self,
            "EndpointConfig",
            production_variants=[
                sagemaker.CfnEndpointConfig.ProductionVariantProperty(
                    variant_name=VARIANT_NAME,
                    model_name=self.model.attr_model_name,
                    instance_type=settings.instance_type,
                    initial_instance_count=settings.initial_instance_count,
                    initial_variant_weight=1.0,
                    inference_ami_version=settings.inference_ami_version,
                    container_startup_health_check_timeout_in_seconds=(
                        settings.startup_health_check_timeout_s
                    ),
                    model_data_download_timeout_in_seconds=settings.model_data_download_timeout_s,
                    routing_config=sagemaker.CfnEndpointConfig.RoutingConfigProperty(
                        routing_strategy="LEAST_OUTSTANDING_REQUESTS"
                    ),
                )
            ],
        )
        # Informational: SageMaker reads the capability from the image LABEL (checked at
        # synth); the tag makes the endpoint config say what it serves.
        config.tags.set_tag(BIDI_LABEL_KEY, "true")
        acknowledge(
            config,
            "AwsSolutions-SM2",
            (
                "ml.g5 instances use local NVMe instance storage, for which SageMaker rejects a "
                "KmsKeyId; the instance store is hardware-encrypted by AWS."
            ),
        )
        return config

    def _execution_role(
        self, image: ecr_assets.DockerImageAsset, bucket: s3.IBucket, weights_prefix: str
    ) -> iam.Role:
        """What AWS lists for a CreateModel execution role ("How to use SageMaker AI execution
        roles", CreateModel API), each part scoped to this endpoint."""
        # Only SageMaker acting for this account. (SourceArn is not set on every SageMaker
        # hosting call, so it is not required here.)
        role = service_role(
            self,
            "sagemaker.amazonaws.com",
            "Kokoro TTS endpoint: read its weights, pull its image, write its logs",
        )
        for statement in _weights_read_statements(bucket, weights_prefix):
            role.add_to_policy(statement)
        # Repository-scoped pull of the image asset; GetAuthorizationToken has no resource.
        image.repository.grant_pull(role)
        group_arn = Stack.of(self).format_arn(
            service="logs",
            resource="log-group",
            resource_name=self.log_group_name,
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        for statement in _logs_and_metrics_statements(group_arn):
            role.add_to_policy(statement)
        self._acknowledge_role_wildcards(role, group_arn, bucket, weights_prefix)
        return role

    def _acknowledge_role_wildcards(
        self, role: iam.Role, group_arn: str, bucket: s3.IBucket, weights_prefix: str
    ) -> None:
        acknowledge(
            role,
            iam5(f"{nag_rendering(self, group_arn)}:*"),
            "Log streams of the endpoint's own log group, whose names SageMaker generates per "
            "instance and variant.",
        )
        acknowledge(
            role,
            iam5(f"{nag_rendering(self, bucket.bucket_arn)}/{weights_prefix}*"),
            "Read access to the objects under this revision's weights prefix only.",
        )
        acknowledge(
            role,
            iam5("*"),
            (
                "ecr:GetAuthorizationToken and cloudwatch:PutMetricData have no resource-level "
                "permissions in IAM; image pulls are scoped to the image asset repository and "
                "metrics to the /aws/sagemaker/Endpoints namespace by condition."
            ),
        )


def _weights_read_statements(bucket: s3.IBucket, weights_prefix: str) -> list[iam.PolicyStatement]:
    """The objects under this revision's weights prefix, and listing only that prefix."""
    return [
        iam.PolicyStatement(
            actions=["s3:GetObject"],
            resources=[bucket.arn_for_objects(f"{weights_prefix}*")],
        ),
        iam.PolicyStatement(
            actions=["s3:ListBucket"],
            resources=[bucket.bucket_arn],
            conditions={"StringLike": {"s3:prefix": [weights_prefix, f"{weights_prefix}*"]}},
        ),
    ]


def _logs_and_metrics_statements(group_arn: str) -> list[iam.PolicyStatement]:
    """The endpoint's own log group and streams; metrics only in the endpoint-instance
    namespace (PutMetricData has no resource, so a condition scopes it)."""
    return [
        iam.PolicyStatement(
            sid="EndpointLogs",
            actions=[
                "logs:CreateLogGroup",
                "logs:CreateLogStream",
                "logs:PutLogEvents",
                "logs:DescribeLogStreams",
            ],
            resources=[group_arn, f"{group_arn}:*"],
        ),
        iam.PolicyStatement(
            sid="EndpointMetrics",
            actions=["cloudwatch:PutMetricData"],
            resources=["*"],
            conditions={"StringEquals": {"cloudwatch:namespace": ENDPOINT_METRICS_NAMESPACE}},
        ),
    ]


# Every deployment must finish within this (BlueGreenUpdatePolicy's limits: 600-28800 s).
MAX_DEPLOYMENT_S = 28800
_DEPLOYMENT_MARGIN_S = 1800  # beyond the waits: launching, downloading and starting the fleet


def blue_green_update(
    *,
    baking_s: int,
    termination_wait_s: int,
    startup_s: int,
    rollback_alarm_names: Sequence[str],
) -> sagemaker.CfnEndpoint.DeploymentConfigProperty:
    """How an update of the endpoint (a new image, weights or settings) is rolled out.

    All at once: the whole new fleet takes every new stream, then is watched for `baking_s`;
    if any of the alarms fires, SageMaker sends traffic back to the old fleet (auto-rollback).
    Canary and linear shifting move part of the fleet, which a one-instance endpoint (the
    default) does not have; rolling updates need a batch of 5-50% of the instances, likewise.
    The old fleet lives `termination_wait_s` longer for the streams it still carries.
    """
    timeout = min(
        MAX_DEPLOYMENT_S, baking_s + termination_wait_s + startup_s + _DEPLOYMENT_MARGIN_S
    )
    return sagemaker.CfnEndpoint.DeploymentConfigProperty(
        blue_green_update_policy=sagemaker.CfnEndpoint.BlueGreenUpdatePolicyProperty(
            traffic_routing_configuration=sagemaker.CfnEndpoint.TrafficRoutingConfigProperty(
                type="ALL_AT_ONCE", wait_interval_in_seconds=baking_s
            ),
            termination_wait_in_seconds=termination_wait_s,
            maximum_execution_timeout_in_seconds=timeout,
        ),
        auto_rollback_configuration=sagemaker.CfnEndpoint.AutoRollbackConfigProperty(
            alarms=[
                sagemaker.CfnEndpoint.AlarmProperty(alarm_name=name)
                for name in rollback_alarm_names
            ]
        ),
    )

"""Concurrency-based autoscaling of the endpoint variant."""

from __future__ import annotations

from aws_cdk import Duration, Stack
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_iam as iam
from constructs import Construct


class EndpointAutoscaling(Construct):
    """Target tracking on concurrent requests per model copy (high-resolution metric).

    Bidirectional sessions are long-lived, so invocations per minute say little about load;
    the number of in-flight requests does.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        variant_name: str,
        min_instances: int,
        max_instances: int,
        target_concurrency: int,
    ) -> None:
        super().__init__(scope, construct_id)
        # Application Auto Scaling always acts on SageMaker variants through its
        # service-linked role; naming it avoids creating an unused role of our own.
        service_linked_role = iam.Role.from_role_arn(
            self,
            "ServiceLinkedRole",
            Stack.of(self).format_arn(
                service="iam",
                region="",
                resource="role",
                resource_name=(
                    "aws-service-role/sagemaker.application-autoscaling.amazonaws.com/"
                    "AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint"
                ),
            ),
            mutable=False,
        )
        self.target = appscaling.ScalableTarget(
            self,
            "Target",
            service_namespace=appscaling.ServiceNamespace.SAGEMAKER,
            resource_id=f"endpoint/{endpoint_name}/variant/{variant_name}",
            scalable_dimension="sagemaker:variant:DesiredInstanceCount",
            min_capacity=min_instances,
            max_capacity=max_instances,
            role=service_linked_role,
        )
        self.target.scale_to_track_metric(
            "ConcurrencyTracking",
            target_value=float(target_concurrency),
            predefined_metric=(
                appscaling.PredefinedMetric.SAGEMAKER_VARIANT_CONCURRENT_REQUESTS_PER_MODEL_HIGH_RESOLUTION
            ),
            # A GPU instance takes minutes to come up; scale in slowly to avoid flapping.
            scale_out_cooldown=Duration.minutes(5),
            scale_in_cooldown=Duration.minutes(15),
        )

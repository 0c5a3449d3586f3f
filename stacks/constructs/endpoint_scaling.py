"""Concurrency-based autoscaling of the endpoint variant."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_applicationautoscaling as appscaling
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
        self.target = appscaling.ScalableTarget(
            self,
            "Target",
            service_namespace=appscaling.ServiceNamespace.SAGEMAKER,
            resource_id=f"endpoint/{endpoint_name}/variant/{variant_name}",
            scalable_dimension="sagemaker:variant:DesiredInstanceCount",
            min_capacity=min_instances,
            max_capacity=max_instances,
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

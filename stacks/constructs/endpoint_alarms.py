"""CloudWatch alarms on endpoint errors and model latency."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct


class EndpointAlarms(Construct):
    """Alarms on 5XX invocation errors, model errors and p90 model latency."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        variant_name: str,
        latency_p90_ms: int,
    ) -> None:
        super().__init__(scope, construct_id)
        dimensions = {"EndpointName": endpoint_name, "VariantName": variant_name}

        def metric(name: str, statistic: str) -> cloudwatch.Metric:
            return cloudwatch.Metric(
                namespace="AWS/SageMaker",
                metric_name=name,
                dimensions_map=dimensions,
                statistic=statistic,
                period=Duration.minutes(1),
            )

        def error_alarm(metric_name: str, description: str) -> cloudwatch.Alarm:
            return cloudwatch.Alarm(
                self,
                metric_name,
                metric=metric(metric_name, "Sum"),
                threshold=1,
                evaluation_periods=5,
                datapoints_to_alarm=2,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
                alarm_description=f"{endpoint_name}: {description}",
            )

        self.errors_5xx = error_alarm("Invocation5XXErrors", "the container answered 5XX")
        self.model_errors = error_alarm(
            "InvocationModelErrors", "model invocation errors (non-2XX, timeouts)"
        )
        self.latency_p90 = cloudwatch.Alarm(
            self,
            "ModelLatencyP90",
            # ModelLatency is reported in microseconds.
            metric=metric("ModelLatency", "p90"),
            threshold=latency_p90_ms * 1000,
            evaluation_periods=5,
            datapoints_to_alarm=3,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=f"{endpoint_name}: p90 model latency above {latency_p90_ms} ms",
        )

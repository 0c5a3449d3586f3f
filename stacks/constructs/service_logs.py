"""Log groups that a service names and creates itself (SageMaker, AgentCore), kept by the stack.

The group's name is fixed by the service, and the service creates the group whenever it
logs, also while a destroyed endpoint or runtime shuts down. A CloudFormation
`AWS::Logs::LogGroup` of that name would then fail the next deploy with "already exists", so
the group is not a stack resource: aws-cdk-lib's `LogRetention` custom resource creates it
when missing, adopts it when present, sets its retention and deletes it with the stack.
Metric filters need the group to exist, so they depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_logs as logs
from constructs import Construct, IDependable

from stacks.log_metrics import LogMetric
from stacks.nag import acknowledge, iam5, nag_rendering

# Construct id of aws-cdk-lib's LogRetention singleton function (one per stack).
LOG_RETENTION_SINGLETON = "LogRetentionaae0aa3c5b4d4f87b02d85b201efdd8a"
RETENTION = logs.RetentionDays.ONE_MONTH
_UNITS = {
    "Milliseconds": cloudwatch.Unit.MILLISECONDS,
    "Count": cloudwatch.Unit.COUNT,
    "None": cloudwatch.Unit.NONE,
}


def service_log_retention(
    scope: Construct, construct_id: str, group_name: str
) -> logs.LogRetention:
    """Create (or adopt) the service's log group with 30 days' retention, deleted on destroy."""
    retention = logs.LogRetention(
        scope,
        construct_id,
        log_group_name=group_name,
        retention=RETENTION,
        removal_policy=RemovalPolicy.DESTROY,
    )
    _acknowledge_log_retention(scope, group_name)
    return retention


def _acknowledge_log_retention(scope: Construct, group_name: str) -> None:
    """The aws-cdk-lib LogRetention function is a stack-level singleton with its own role."""
    stack = Stack.of(scope)
    singleton = stack.node.try_find_child(LOG_RETENTION_SINGLETON)
    assert singleton is not None, "aws-cdk-lib renamed the LogRetention singleton"
    group_streams = (
        f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:{group_name}:*"
    )
    acknowledge(
        singleton,
        "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
        "AWSLambdaBasicExecutionRole]",
        "The aws-cdk-lib LogRetention function uses the AWS managed "
        "AWSLambdaBasicExecutionRole for its own logs; it runs no user code.",
    )
    acknowledge(
        singleton,
        iam5(nag_rendering(scope, group_streams)),
        "LogRetention may delete this one service log group only, on stack deletion "
        "(the :* suffix is IAM's form of a log group ARN).",
    )
    acknowledge(
        singleton,
        iam5("*"),
        "aws-cdk-lib generates its LogRetention policy with Put/DeleteRetentionPolicy on '*' "
        "(one singleton function serves every log group of a stack); it sets the retention "
        "of the service's log group only, and DeleteLogGroup is limited to that group.",
    )


class LogMetricFilters(Construct):
    """One metric filter per LogMetric on a service log group, in the app's namespace."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        group_name: str,
        namespace: str,
        metrics: Sequence[LogMetric],
        group_exists: IDependable,
    ) -> None:
        super().__init__(scope, construct_id)
        self.namespace = namespace
        group = logs.LogGroup.from_log_group_name(self, "Group", group_name)
        for spec in metrics:
            metric_filter = logs.MetricFilter(
                self,
                spec.name,
                log_group=group,
                filter_pattern=logs.FilterPattern.literal(spec.pattern),
                metric_namespace=namespace,
                metric_name=spec.name,
                metric_value=spec.value,
                # Counts report 0 in minutes with logs but no match (graphs without gaps);
                # timings report nothing then, so 0 never enters a percentile.
                default_value=0 if spec.counts else None,
                unit=_UNITS[spec.unit],
            )
            metric_filter.node.add_dependency(group_exists)

    def metric(self, spec: LogMetric, statistic: str, minutes: int = 1) -> cloudwatch.Metric:
        return log_metric(self.namespace, spec, statistic, minutes)


def log_metric(
    namespace: str, spec: LogMetric, statistic: str, minutes: int = 1, label: str | None = None
) -> cloudwatch.Metric:
    """A metric a LogMetricFilters publishes (also from another stack: it is only a name)."""
    return cloudwatch.Metric(
        namespace=namespace,
        metric_name=spec.name,
        statistic=statistic,
        period=Duration.minutes(minutes),
        label=label or f"{spec.name} {statistic}",
    )

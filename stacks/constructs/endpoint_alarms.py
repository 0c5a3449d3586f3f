"""CloudWatch alarms on the endpoint: errors, slow first sound, refused sessions.

Every alarm notifies the alarm topic when it fires and when it clears. Not an alarm:
SageMaker's `ModelLatency`, which is measured per request; a bidirectional stream is one
request lasting as long as the caller keeps the session, so its latency says how long
callers talked, not how fast the model answered (docs/monitoring.md). The time to the first
sound, which the server logs per session, is the latency a caller hears.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_sns as sns
from constructs import Construct

from stacks.constructs.service_logs import LogMetricFilters
from stacks.constructs.tts_endpoint import endpoint_metric
from stacks.log_metrics import SERVER_FIRST_SOUND, SESSIONS_REFUSED

_AT_LEAST = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD


@dataclass(frozen=True)
class AlarmTargets:
    endpoint_name: str
    server_metrics: LogMetricFilters
    topic: sns.ITopic


class EndpointAlarms(Construct):
    """Alarms on 5XX and model errors, p95 first sound and refused sessions."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        targets: AlarmTargets,
        first_sound_p95_ms: int,
        refusal_minutes: int,
    ) -> None:
        super().__init__(scope, construct_id)
        self._targets = targets
        name = targets.endpoint_name
        self.errors_5xx = self._error_alarm("Invocation5XXErrors", "the container answered 5XX")
        self.model_errors = self._error_alarm(
            "InvocationModelErrors", "model invocation errors (non-2XX, timeouts)"
        )
        self.first_sound_p95 = cloudwatch.Alarm(
            self,
            "FirstSoundP95",
            metric=targets.server_metrics.metric(SERVER_FIRST_SOUND, "p95"),
            threshold=first_sound_p95_ms,
            evaluation_periods=5,
            datapoints_to_alarm=3,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=(
                f"{name}: p95 time to first sound of TTS sessions above {first_sound_p95_ms} ms "
                "in 3 of 5 minutes"
            ),
        )
        self.refusals = cloudwatch.Alarm(
            self,
            "SessionsRefused",
            metric=targets.server_metrics.metric(SESSIONS_REFUSED, "Sum", refusal_minutes),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=_AT_LEAST,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=(
                f"{name}: a TTS session was refused (busy) within {refusal_minutes} min"
            ),
        )
        self.all = (self.errors_5xx, self.model_errors, self.first_sound_p95, self.refusals)
        for alarm in self.all:
            alarm.add_alarm_action(actions.SnsAction(targets.topic))
            alarm.add_ok_action(actions.SnsAction(targets.topic))

    def _error_alarm(self, metric_name: str, description: str) -> cloudwatch.Alarm:
        return cloudwatch.Alarm(
            self,
            metric_name,
            metric=endpoint_metric(self._targets.endpoint_name, metric_name, "Sum"),
            threshold=1,
            evaluation_periods=5,
            datapoints_to_alarm=2,
            comparison_operator=_AT_LEAST,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=f"{self._targets.endpoint_name}: {description}",
        )

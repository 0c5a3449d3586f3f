"""One CloudWatch dashboard for the deployed voice: what callers hear, load, and errors.

How to read it: docs/monitoring.md. The agent's per-turn metrics are published in the agent
stack's log group (agent_stack.py); the widgets name them by namespace and metric name only,
so this stack needs nothing from the agent stack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from stacks.constructs.service_logs import log_metric
from stacks.constructs.tts_endpoint import (
    ENDPOINT_METRICS_NAMESPACE,
    INVOCATION_METRICS_NAMESPACE,
    endpoint_metric,
)
from stacks.log_metrics import (
    AGENT_FIRST_SOUND,
    AGENT_FIRST_TEXT,
    MODEL_RTF,
    SENTENCES_NOT_SPOKEN,
    SENTENCES_PREEMPTED,
    SERVER_FIRST_SOUND,
    SESSIONS_ENDED,
    SESSIONS_REFUSED,
    SESSIONS_STALLED,
    TURNS,
    TURNS_INTERRUPTED,
    LogMetric,
)

REFUSALS_BY_CAUSE = (
    'fields cause | filter logger = "kokoro.app" and msg = "session refused" '
    "| stats count(*) as refused by cause"
)
SESSIONS_BY_END = (
    'fields ended | filter logger = "kokoro.session" and msg = "session end" '
    "| stats count(*) as sessions by ended"
)
# The lines of the first-sound graph: (metric, statistic, label).
FIRST_SOUND_LINES = (
    (SERVER_FIRST_SOUND, "p50", "server p50 (per session)"),
    (SERVER_FIRST_SOUND, "p95", "server p95 (per session)"),
    (AGENT_FIRST_SOUND, "p50", "agent p50 (per turn)"),
    (AGENT_FIRST_SOUND, "p95", "agent p95 (per turn)"),
    (AGENT_FIRST_TEXT, "p50", "agent first text p50"),
)


@dataclass(frozen=True)
class DashboardSources:
    """What the widgets draw; the names are AppConfig's (`AppConfig.settings_for`)."""

    endpoint_name: str
    endpoint_log_group: str
    metrics_namespace: str  # of the log metrics
    target_concurrency_per_instance: int  # the scaling policy's target, drawn on its metric
    first_sound_alarm_p95_ms: int
    alarms: Sequence[cloudwatch.IAlarm]  # empty while the voice is paused


def _graph(
    title: str,
    left: Sequence[cloudwatch.IMetric],
    *,
    width: int = 12,
    line: tuple[float, str] | None = None,
) -> cloudwatch.GraphWidget:
    """A graph of the `left` metrics, with a horizontal `line` (value, label) if given."""
    annotations = None
    if line:
        value, label = line
        annotations = [cloudwatch.HorizontalAnnotation(value=value, label=label)]
    return cloudwatch.GraphWidget(
        title=title, width=width, left=list(left), left_annotations=annotations
    )


class VoiceDashboard(Construct):
    """The dashboard `name`, and its console URL (`url`, a stack output)."""

    def __init__(
        self, scope: Construct, construct_id: str, *, name: str, sources: DashboardSources
    ) -> None:
        super().__init__(scope, construct_id)
        self.sources = sources
        rows: list[list[cloudwatch.IWidget]] = [
            [self._first_sound(), self._sessions()],
            [self._concurrency(), self._utilization()],
            [self._rtf(), self._sentences(), self._turns()],
            [self._errors(), *self._alarm_status()],
            [
                self._query("Refused sessions by cause", REFUSALS_BY_CAUSE),
                self._query("How TTS sessions ended", SESSIONS_BY_END),
            ],
        ]
        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=name, widgets=rows)
        region = Stack.of(self).region
        self.url = (
            f"https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}"
            f"#dashboards:name={name}"
        )

    def _log(self, spec: LogMetric, statistic: str, label: str | None = None) -> cloudwatch.Metric:
        return log_metric(self.sources.metrics_namespace, spec, statistic, label=label)

    def _endpoint(
        self, metric: str, statistic: str, namespace: str = INVOCATION_METRICS_NAMESPACE
    ) -> cloudwatch.Metric:
        return endpoint_metric(self.sources.endpoint_name, metric, statistic, namespace)

    def _first_sound(self) -> cloudwatch.GraphWidget:
        return _graph(
            "Time to first sound (ms)",
            [self._log(spec, statistic, label) for spec, statistic, label in FIRST_SOUND_LINES],
            line=(self.sources.first_sound_alarm_p95_ms, "alarm: server p95"),
        )

    def _sessions(self) -> cloudwatch.GraphWidget:
        return _graph(
            "TTS sessions per minute",
            [
                self._log(SESSIONS_ENDED, "Sum", label="ended"),
                self._log(SESSIONS_REFUSED, "Sum", label="refused (busy)"),
                self._log(SESSIONS_STALLED, "Sum", label="stalled"),
                self._endpoint("Invocations", "Sum"),
            ],
        )

    def _concurrency(self) -> cloudwatch.GraphWidget:
        return _graph(
            "Concurrent streams per instance (what autoscaling tracks)",
            [self._endpoint("ConcurrentRequestsPerModel", stat) for stat in ("Average", "Maximum")],
            line=(self.sources.target_concurrency_per_instance, "scaling target"),
        )

    def _utilization(self) -> cloudwatch.GraphWidget:
        return _graph(
            "Instance utilization (%, summed over instances)",
            [
                self._endpoint(metric, "Average", ENDPOINT_METRICS_NAMESPACE)
                for metric in ("CPUUtilization", "GPUUtilization", "GPUMemoryUtilization")
            ],
        )

    def _rtf(self) -> cloudwatch.GraphWidget:
        return _graph(
            "Model real-time factor (per sentence)",
            [self._log(MODEL_RTF, stat) for stat in ("p50", "p95", "Maximum")],
            width=8,
            line=(1, "real time"),
        )

    def _sentences(self) -> cloudwatch.GraphWidget:
        return self._counts(
            "Sentences not spoken, pre-empted",
            (SENTENCES_NOT_SPOKEN, "not spoken"),
            (SENTENCES_PREEMPTED, "pre-empted"),
        )

    def _turns(self) -> cloudwatch.GraphWidget:
        return self._counts("Agent turns", (TURNS, "turns"), (TURNS_INTERRUPTED, "interrupted"))

    def _counts(self, title: str, *metrics: tuple[LogMetric, str]) -> cloudwatch.GraphWidget:
        """Per-minute sums of log metrics, each line labelled."""
        return _graph(title, [self._log(spec, "Sum", label) for spec, label in metrics], width=8)

    def _errors(self) -> cloudwatch.GraphWidget:
        return _graph(
            "Endpoint errors",
            [
                self._endpoint(metric, "Sum")
                for metric in ("Invocation5XXErrors", "InvocationModelErrors")
            ],
        )

    def _alarm_status(self) -> list[cloudwatch.IWidget]:
        if not self.sources.alarms:
            return []
        return [
            cloudwatch.AlarmStatusWidget(title="Alarms", width=12, alarms=list(self.sources.alarms))
        ]

    def _query(self, title: str, query: str) -> cloudwatch.LogQueryWidget:
        return cloudwatch.LogQueryWidget(
            title=title,
            width=12,
            log_group_names=[self.sources.endpoint_log_group],
            query_string=query,
            view=cloudwatch.LogQueryVisualizationType.TABLE,
        )

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
from stacks.constructs.tts_endpoint import ENDPOINT_METRICS_NAMESPACE, endpoint_metric
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


@dataclass(frozen=True)
class DashboardSources:
    endpoint_name: str
    endpoint_log_group: str
    namespace: str  # of the log metrics
    target_concurrency: int  # the scaling policy's target, drawn on its metric
    first_sound_alarm_ms: int
    alarms: Sequence[cloudwatch.IAlarm]  # empty while the voice is paused


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

    def _first_sound(self) -> cloudwatch.GraphWidget:
        ns = self.sources.namespace
        return cloudwatch.GraphWidget(
            title="Time to first sound (ms)",
            width=12,
            left=[
                log_metric(ns, SERVER_FIRST_SOUND, "p50", label="server p50 (per session)"),
                log_metric(ns, SERVER_FIRST_SOUND, "p95", label="server p95 (per session)"),
                log_metric(ns, AGENT_FIRST_SOUND, "p50", label="agent p50 (per turn)"),
                log_metric(ns, AGENT_FIRST_SOUND, "p95", label="agent p95 (per turn)"),
                log_metric(ns, AGENT_FIRST_TEXT, "p50", label="agent first text p50"),
            ],
            left_annotations=[
                cloudwatch.HorizontalAnnotation(
                    value=self.sources.first_sound_alarm_ms, label="alarm: server p95"
                )
            ],
        )

    def _sessions(self) -> cloudwatch.GraphWidget:
        ns = self.sources.namespace
        return cloudwatch.GraphWidget(
            title="TTS sessions per minute",
            width=12,
            left=[
                log_metric(ns, SESSIONS_ENDED, "Sum", label="ended"),
                log_metric(ns, SESSIONS_REFUSED, "Sum", label="refused (busy)"),
                log_metric(ns, SESSIONS_STALLED, "Sum", label="stalled"),
                endpoint_metric(self.sources.endpoint_name, "Invocations", "Sum"),
            ],
        )

    def _concurrency(self) -> cloudwatch.GraphWidget:
        name = self.sources.endpoint_name
        return cloudwatch.GraphWidget(
            title="Concurrent streams per instance (what autoscaling tracks)",
            width=12,
            left=[
                endpoint_metric(name, "ConcurrentRequestsPerModel", "Average"),
                endpoint_metric(name, "ConcurrentRequestsPerModel", "Maximum"),
            ],
            left_annotations=[
                cloudwatch.HorizontalAnnotation(
                    value=self.sources.target_concurrency, label="scaling target"
                )
            ],
        )

    def _utilization(self) -> cloudwatch.GraphWidget:
        name = self.sources.endpoint_name
        return cloudwatch.GraphWidget(
            title="Instance utilization (%, summed over instances)",
            width=12,
            left=[
                endpoint_metric(name, metric, "Average", ENDPOINT_METRICS_NAMESPACE)
                for metric in ("CPUUtilization", "GPUUtilization", "GPUMemoryUtilization")
            ],
        )

    def _rtf(self) -> cloudwatch.GraphWidget:
        ns = self.sources.namespace
        return cloudwatch.GraphWidget(
            title="Model real-time factor (per sentence)",
            width=8,
            left=[log_metric(ns, MODEL_RTF, stat) for stat in ("p50", "p95", "Maximum")],
            left_annotations=[cloudwatch.HorizontalAnnotation(value=1, label="real time")],
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
        ns = self.sources.namespace
        return cloudwatch.GraphWidget(
            title=title,
            width=8,
            left=[log_metric(ns, spec, "Sum", label=label) for spec, label in metrics],
        )

    def _errors(self) -> cloudwatch.GraphWidget:
        name = self.sources.endpoint_name
        return cloudwatch.GraphWidget(
            title="Endpoint errors",
            width=12,
            left=[
                endpoint_metric(name, metric, "Sum")
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

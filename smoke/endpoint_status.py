"""DescribeEndpoint before invoking: an endpoint that is not InService gets that diagnosis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from smoke.diagnosis import Call, Cause, Diagnosis, from_exception, not_in_service
from teardown import pricing


@dataclass(frozen=True)
class EndpointState:
    status: str  # EndpointStatus, or why it is unknown
    problem: Diagnosis | None  # set when the endpoint checks cannot pass
    cost: str = ""  # what the running instances bill by the hour, when it can be read


def running_cost(sagemaker: Any, described: dict[str, Any]) -> str:
    """'1 x ml.g5.xlarge, about $1.41 per hour' from the variants' current instance counts and
    the endpoint config's instance types; '' when either cannot be read."""
    counts = {
        v.get("VariantName"): int(v.get("CurrentInstanceCount") or 0)
        for v in described.get("ProductionVariants", [])
    }
    try:
        config = sagemaker.describe_endpoint_config(
            EndpointConfigName=described["EndpointConfigName"]
        )
    except Exception:
        return ""
    parts, total = [], 0.0
    for variant in config.get("ProductionVariants", []):
        instance_type = str(variant.get("InstanceType", "?"))
        count = counts.get(variant.get("VariantName"), 0)
        hourly = pricing.endpoint_usd_per_hour(instance_type, count)
        if hourly is None:
            return f"{count} x {instance_type} (price not in teardown/pricing.py)"
        parts.append(f"{count} x {instance_type}")
        total += hourly
    if not parts:
        return ""
    return f"{', '.join(parts)}, about ${total:.2f} per hour while it runs"


def endpoint_state(sagemaker: Any, endpoint_name: str, timeout_s: float) -> EndpointState:
    call = Call("DescribeEndpoint", "sagemaker:DescribeEndpoint", f"endpoint {endpoint_name}")
    try:
        described = sagemaker.describe_endpoint(EndpointName=endpoint_name)
    except Exception as exc:
        diagnosis = from_exception(exc, call, timeout_s)
        if diagnosis.cause is Cause.ACCESS_DENIED:
            # Reading the status is a convenience: the invocations still tell the truth.
            return EndpointState(f"unknown ({diagnosis.summary})", None)
        return EndpointState("unknown", diagnosis)
    status = str(described.get("EndpointStatus", "unknown"))
    if status == "InService":
        return EndpointState(status, None, running_cost(sagemaker, described))
    return EndpointState(
        status, not_in_service(endpoint_name, status, described.get("FailureReason"))
    )

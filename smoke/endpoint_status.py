"""DescribeEndpoint before invoking: an endpoint that is not InService gets that diagnosis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from smoke.diagnosis import Call, Cause, Diagnosis, from_exception, not_in_service


@dataclass(frozen=True)
class EndpointState:
    status: str  # EndpointStatus, or why it is unknown
    problem: Diagnosis | None  # set when the endpoint checks cannot pass


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
        return EndpointState(status, None)
    return EndpointState(
        status, not_in_service(endpoint_name, status, described.get("FailureReason"))
    )

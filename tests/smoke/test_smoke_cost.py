"""The endpoint line's hourly cost: instance counts from DescribeEndpoint, types from
DescribeEndpointConfig, prices from teardown/pricing.py. The two answers are recorded
DescribeEndpoint/DescribeEndpointConfig shapes (moto rejects ml.g5 in endpoint configs)."""

from __future__ import annotations

from typing import Any

from smoke.endpoint_status import running_cost
from teardown import pricing


class RecordedSageMaker:
    """Answers DescribeEndpointConfig with a fixed response, as SageMaker shapes it."""

    def __init__(self, instance_type: str, fail: bool = False) -> None:
        self.instance_type, self.fail = instance_type, fail

    def describe_endpoint_config(self, EndpointConfigName: str) -> dict[str, Any]:
        if self.fail:
            raise PermissionError("AccessDenied: sagemaker:DescribeEndpointConfig")
        assert EndpointConfigName == "cfg-1"
        variant = {"VariantName": "AllTraffic", "InstanceType": self.instance_type}
        return {"EndpointConfigName": EndpointConfigName, "ProductionVariants": [variant]}


def _described(count: int) -> dict[str, Any]:
    return {
        "EndpointConfigName": "cfg-1",
        "ProductionVariants": [{"VariantName": "AllTraffic", "CurrentInstanceCount": count}],
    }


def test_running_g5_instances_are_priced_per_hour() -> None:
    line = running_cost(RecordedSageMaker("ml.g5.xlarge"), _described(2))
    expected = pricing.endpoint_usd_per_hour("ml.g5.xlarge", 2)
    assert expected is not None and line == (
        f"2 x ml.g5.xlarge, about ${expected:.2f} per hour while it runs"
    )
    assert "$2.82" in line


def test_unknown_price_or_unreadable_config_says_so_or_nothing() -> None:
    line = running_cost(RecordedSageMaker("ml.p5.48xlarge"), _described(1))
    assert line == "1 x ml.p5.48xlarge (price not in teardown/pricing.py)"
    assert running_cost(RecordedSageMaker("ml.g5.xlarge", fail=True), _described(1)) == ""

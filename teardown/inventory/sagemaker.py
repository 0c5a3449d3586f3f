"""SageMaker endpoints (billing per instance-hour), endpoint configs and models of the app."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from teardown import pricing
from teardown.aws import error_code
from teardown.inventory.tags import is_app, tag_dict
from teardown.model import Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope


def _tagged(sm: Any, arn: str, app_name: str) -> bool:
    return is_app(tag_dict(list(paginated(sm, "list_tags", "Tags", ResourceArn=arn))), app_name)


def _variants_of_config(sm: Any, config_name: str) -> dict[str, str]:
    """Variant name -> instance type; empty when the config is already gone."""
    try:
        config = sm.describe_endpoint_config(EndpointConfigName=config_name)
    except ClientError as exc:
        if error_code(exc) == "ValidationException":
            return {}
        raise
    return {
        v["VariantName"]: v.get("InstanceType", "serverless")
        for v in config.get("ProductionVariants", [])
    }


def _endpoint_finding(sm: Any, summary: dict[str, Any]) -> Finding:
    name = summary["EndpointName"]
    endpoint = sm.describe_endpoint(EndpointName=name)
    config_name = endpoint.get("EndpointConfigName", "")
    types = _variants_of_config(sm, config_name) if config_name else {}
    parts, hourly, unknown = [], 0.0, False
    for variant in endpoint.get("ProductionVariants", []):
        count = int(variant.get("CurrentInstanceCount", variant.get("DesiredInstanceCount", 0)))
        itype = types.get(variant["VariantName"], "unknown type")
        parts.append(f"{count} x {itype}")
        price = pricing.endpoint_usd_per_hour(itype, count)
        if price is None:
            unknown = unknown or count > 0
        else:
            hourly += price
    usd_per_hour = None if unknown else hourly
    return Finding(
        service="sagemaker",
        kind="endpoint",
        name=name,
        status=endpoint.get("EndpointStatus", summary.get("EndpointStatus", "")),
        detail=f"config {config_name}; " + (", ".join(parts) or "no instances"),
        billing=True,
        usd_per_hour=usd_per_hour,
        usd_per_month=None if usd_per_hour is None else pricing.hourly_to_monthly(usd_per_hour),
        note="price of this instance type not in the estimate table" if unknown else "",
        ref={"arn": summary["EndpointArn"], "endpoint_config": config_name},
    )


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    sm = scope.clients.get("sagemaker")
    found: list[Finding] = []

    for summary in paginated(sm, "list_endpoints", "Endpoints"):
        if _tagged(sm, summary["EndpointArn"], scope.app_name):
            found.append(_endpoint_finding(sm, summary))

    # Configs and models cost nothing by themselves, but an orphan keeps the app's name.
    for paginator, items, kind, arn_key, name_key in (
        (
            "list_endpoint_configs",
            "EndpointConfigs",
            "endpoint-config",
            "EndpointConfigArn",
            "EndpointConfigName",
        ),
        ("list_models", "Models", "model", "ModelArn", "ModelName"),
    ):
        for item in paginated(sm, paginator, items):
            if _tagged(sm, item[arn_key], scope.app_name):
                found.append(
                    Finding(
                        service="sagemaker",
                        kind=kind,
                        name=item[name_key],
                        status="exists",
                        detail="no charge by itself",
                        ref={"arn": item[arn_key]},
                    )
                )
    return found

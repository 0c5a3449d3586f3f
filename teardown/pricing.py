"""Rough cost estimates: a small table of on-demand list prices, not a billing source.

All prices are USD for us-east-1 (N. Virginia); other regions differ by a few percent to tens
of percent. They are here so the report can say "this endpoint costs about $X per hour", not
to predict a bill. Sources (checked 2026-11): AWS pricing pages and public write-ups quoting them.
"""

from __future__ import annotations

# AWS bills storage per GB-month with GB = 2**30 bytes.
BYTES_PER_GB = 1024**3
HOURS_PER_MONTH = 730

# S3 Standard, first 50 TB tier.
S3_STANDARD_USD_PER_GB_MONTH = 0.023
# ECR private repository storage.
ECR_USD_PER_GB_MONTH = 0.10
# CloudWatch Logs archived storage (standard log class).
LOGS_USD_PER_GB_MONTH = 0.03

# SageMaker real-time inference (hosting) on-demand, per instance-hour.
SAGEMAKER_HOSTING_USD_PER_HOUR: dict[str, float] = {
    "ml.g5.xlarge": 1.408,
}

PRICING_NOTE = (
    "Costs are estimates from on-demand list prices for us-east-1 "
    f"(S3 Standard ${S3_STANDARD_USD_PER_GB_MONTH}/GB-month, ECR ${ECR_USD_PER_GB_MONTH}/GB-month, "
    f"CloudWatch Logs ${LOGS_USD_PER_GB_MONTH}/GB-month, SageMaker ml.g5.xlarge "
    f"${SAGEMAKER_HOSTING_USD_PER_HOUR['ml.g5.xlarge']}/instance-hour); "
    "your region, tier and discounts change the real bill."
)


def storage_usd_per_month(size_bytes: int, usd_per_gb_month: float) -> float:
    """Monthly storage cost of ``size_bytes`` at a per-GB-month price."""
    if size_bytes < 0:
        raise ValueError(f"size_bytes must be >= 0, got {size_bytes}")
    return size_bytes / BYTES_PER_GB * usd_per_gb_month


def endpoint_usd_per_hour(instance_type: str, instance_count: int) -> float | None:
    """Hourly cost of a real-time endpoint's instances; None for an instance type not in
    the table (the report then says the price is unknown rather than guessing)."""
    if instance_count < 0:
        raise ValueError(f"instance_count must be >= 0, got {instance_count}")
    price = SAGEMAKER_HOSTING_USD_PER_HOUR.get(instance_type)
    return None if price is None else price * instance_count


def hourly_to_monthly(usd_per_hour: float) -> float:
    return usd_per_hour * HOURS_PER_MONTH


def human_bytes(size_bytes: int) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")

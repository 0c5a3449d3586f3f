"""S3 buckets of the app in the scanned region (the retained weights bucket), with their
size including every non-current version, and the storage they still cost."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from botocore.exceptions import ClientError

from teardown import pricing
from teardown.aws import error_code, is_access_denied
from teardown.config import WEIGHTS_BUCKET_CONTEXT_KEY
from teardown.inventory.tags import is_app, tag_dict
from teardown.model import Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope


@dataclass
class BucketStats:
    current_objects: int = 0
    noncurrent_versions: int = 0
    delete_markers: int = 0
    size_bytes: int = 0  # all versions, current and non-current


def bucket_region(s3: Any, name: str) -> str:
    constraint = s3.get_bucket_location(Bucket=name).get("LocationConstraint")
    # Legacy values: no constraint is us-east-1, "EU" is eu-west-1.
    return str({None: "us-east-1", "": "us-east-1", "EU": "eu-west-1"}.get(constraint, constraint))


def bucket_tags(s3: Any, name: str) -> dict[str, str]:
    try:
        return tag_dict(s3.get_bucket_tagging(Bucket=name).get("TagSet"))
    except ClientError as exc:
        if error_code(exc) == "NoSuchTagSet":
            return {}
        raise


def bucket_stats(s3: Any, name: str) -> BucketStats:
    stats = BucketStats()
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=name):
        for version in page.get("Versions", []):
            stats.size_bytes += int(version.get("Size", 0))
            if version.get("IsLatest"):
                stats.current_objects += 1
            else:
                stats.noncurrent_versions += 1
        stats.delete_markers += len(page.get("DeleteMarkers", []))
    return stats


def reuse_args(bucket: str) -> str:
    return f"-c {WEIGHTS_BUCKET_CONTEXT_KEY}={bucket}"


def reuse_note(bucket: str, keep: bool) -> str:
    """The app's one bucket is the weights bucket, retained on destroy so it can be reused."""
    fate = "kept by --keep-weights-bucket" if keep else "--delete removes it for good"
    return (
        "retained weights bucket: a later deploy can reuse it instead of creating a new one "
        f"and downloading the weights again: npx cdk deploy --all {reuse_args(bucket)} ({fate})"
    )


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    s3 = scope.clients.get("s3")
    found: list[Finding] = []
    for bucket in paginated(s3, "list_buckets", "Buckets"):
        name = bucket["Name"]
        try:
            region = bucket.get("BucketRegion") or bucket_region(s3, name)
            if region != scope.region:
                continue
            tags = bucket_tags(s3, name)
        except ClientError as exc:
            if error_code(exc) == "NoSuchBucket":
                continue  # deleted between the listing and this call
            # Cannot tell whether it is ours: say so instead of calling S3 clean, and go on
            # with the other buckets.
            why = "access denied" if is_access_denied(exc) else error_code(exc)
            check.unchecked(f"bucket {name}: cannot read its region/tags ({why})")
            continue
        if not is_app(tags, scope.app_name):
            continue
        stats = bucket_stats(s3, name)
        versioning = s3.get_bucket_versioning(Bucket=name).get("Status", "Disabled")
        monthly = pricing.storage_usd_per_month(
            stats.size_bytes, pricing.S3_STANDARD_USD_PER_GB_MONTH
        )
        found.append(
            Finding(
                service="s3",
                kind="bucket",
                name=name,
                status="retained",
                detail=(
                    f"{stats.current_objects} objects, {stats.noncurrent_versions} "
                    f"non-current versions, {stats.delete_markers} delete markers, "
                    f"{pricing.human_bytes(stats.size_bytes)} in all versions; "
                    f"versioning {versioning}"
                ),
                billing=stats.size_bytes > 0,
                usd_per_month=monthly,
                deletable=not scope.keep_weights_bucket,
                note=reuse_note(name, scope.keep_weights_bucket),
                ref={"versioning": versioning, "reuse_with": reuse_args(name), **asdict(stats)},
            )
        )
    return found

"""Deletes flagged resources in a safe order. Idempotent: something already gone counts
as done, so a re-run after an interruption simply finishes the job."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, WaiterError

from teardown.aws import error_code
from teardown.model import DELETE_ORDER, Finding
from teardown.paging import paginated
from teardown.scope import Scope

# S3 DeleteObjects takes at most 1000 keys per call.
S3_BATCH = 1000
# Waits for asynchronous deletes: real endpoints and stacks take minutes.
STACK_WAIT = {"Delay": 10, "MaxAttempts": 180}
ENDPOINT_WAIT = {"Delay": 15, "MaxAttempts": 80}

# Error codes that mean "already gone" for each kind.
_GONE_CODES = {
    "bucket": {"NoSuchBucket"},
    "image": {"RepositoryNotFoundException", "ImageNotFoundException"},
    "repository": {"RepositoryNotFoundException"},
    "log-group": {"ResourceNotFoundException"},
    "agent-runtime": {"ResourceNotFoundException"},
}


class DeleteFailed(Exception):
    """A delete call that AWS refused; the message is shown in the report."""


class AlreadyGone(Exception):
    """Nothing left to delete for this finding (a re-run, or someone else was faster)."""


@dataclass
class DeleteOutcome:
    deleted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _gone(kind: str, exc: ClientError) -> bool:
    code = error_code(exc)
    if code in _GONE_CODES.get(kind, set()):
        return True
    # SageMaker and CloudFormation say "not found" through a generic validation error.
    message = str(exc)
    return code in {"ValidationException", "ValidationError"} and (
        "Could not find" in message or "does not exist" in message
    )


def _delete_stack(scope: Scope, f: Finding) -> None:
    cfn = scope.clients.get("cloudformation")
    # By stack id, a deleted stack still answers (DELETE_COMPLETE) instead of "not found".
    [stack] = cfn.describe_stacks(StackName=f.ref["stack_id"])["Stacks"]
    if stack["StackStatus"] == "DELETE_COMPLETE":
        raise AlreadyGone
    cfn.delete_stack(StackName=f.ref["stack_id"])
    scope.progress(f"  waiting for stack {f.name} to be deleted ...")
    cfn.get_waiter("stack_delete_complete").wait(
        StackName=f.ref["stack_id"], WaiterConfig=STACK_WAIT
    )


def _delete_endpoint(scope: Scope, f: Finding) -> None:
    sm = scope.clients.get("sagemaker")
    sm.delete_endpoint(EndpointName=f.name)
    scope.progress(f"  waiting for endpoint {f.name} to be deleted ...")
    sm.get_waiter("endpoint_deleted").wait(EndpointName=f.name, WaiterConfig=ENDPOINT_WAIT)


def _delete_endpoint_config(scope: Scope, f: Finding) -> None:
    scope.clients.get("sagemaker").delete_endpoint_config(EndpointConfigName=f.name)


def _delete_model(scope: Scope, f: Finding) -> None:
    scope.clients.get("sagemaker").delete_model(ModelName=f.name)


def _delete_runtime(scope: Scope, f: Finding) -> None:
    scope.clients.get("bedrock-agentcore-control").delete_agent_runtime(agentRuntimeId=f.ref["id"])


def empty_bucket(s3: Any, bucket: str, progress: Callable[[str], None], expected: int) -> int:
    """Delete every object version and delete marker, 1000 per call; returns the count.

    Always re-lists from the start: listing markers stay valid while deleting this way, and
    anything written meanwhile is caught too."""
    deleted = 0
    while True:
        page = s3.list_object_versions(Bucket=bucket, MaxKeys=S3_BATCH)
        batch = [
            {"Key": v["Key"], "VersionId": v["VersionId"]}
            for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
        ]
        if not batch:
            return deleted
        result = s3.delete_objects(Bucket=bucket, Delete={"Objects": batch, "Quiet": True})
        errors = result.get("Errors", [])
        if errors:
            first = errors[0]
            raise DeleteFailed(
                f"{len(errors)} object versions not deleted, e.g. {first.get('Key')}: "
                f"{first.get('Code')} {first.get('Message')}"
            )
        deleted += len(batch)
        total = max(expected, deleted)
        progress(f"  s3://{bucket}: {deleted}/{total} versions and markers deleted")


def _delete_bucket(scope: Scope, f: Finding) -> None:
    s3 = scope.clients.get("s3")
    expected = f.ref["current_objects"] + f.ref["noncurrent_versions"] + f.ref["delete_markers"]
    scope.progress(f"  emptying s3://{f.name} ({expected} versions and delete markers) ...")
    empty_bucket(s3, f.name, scope.progress, expected)
    for upload in paginated(s3, "list_multipart_uploads", "Uploads", Bucket=f.name):
        s3.abort_multipart_upload(Bucket=f.name, Key=upload["Key"], UploadId=upload["UploadId"])
    s3.delete_bucket(Bucket=f.name)


def _delete_image(scope: Scope, f: Finding) -> None:
    ecr = scope.clients.get("ecr")
    repo, digest, mine = f.ref["repository"], f.ref["digest"], set(f.ref["tags"])
    # Re-read the tags right before deleting: another app may have tagged this digest since.
    image = ecr.describe_images(repositoryName=repo, imageIds=[{"imageDigest": digest}])
    current = set(image["imageDetails"][0].get("imageTags", []))
    if current - mine:
        # Shared digest: remove only this app's tags; the image stays for its other tags.
        ids = [{"imageTag": t} for t in sorted(current & mine)]
    else:
        ids = [{"imageDigest": digest}]
    if not ids:
        raise AlreadyGone
    result = ecr.batch_delete_image(repositoryName=repo, imageIds=ids)
    failures = [x for x in result.get("failures", []) if x.get("failureCode") != "ImageNotFound"]
    if failures:
        raise DeleteFailed(f"{failures[0].get('failureCode')}: {failures[0].get('failureReason')}")


def _delete_repository(scope: Scope, f: Finding) -> None:
    scope.clients.get("ecr").delete_repository(repositoryName=f.name, force=True)


def _delete_log_group(scope: Scope, f: Finding) -> None:
    scope.clients.get("logs").delete_log_group(logGroupName=f.name)


DELETERS: dict[str, Callable[[Scope, Finding], None]] = {
    "stack": _delete_stack,
    "endpoint": _delete_endpoint,
    "endpoint-config": _delete_endpoint_config,
    "model": _delete_model,
    "agent-runtime": _delete_runtime,
    "bucket": _delete_bucket,
    "image": _delete_image,
    "repository": _delete_repository,
    "log-group": _delete_log_group,
}
assert set(DELETERS) == set(DELETE_ORDER)


def ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: DELETE_ORDER.index(f.kind))


def delete_findings(scope: Scope, findings: list[Finding]) -> DeleteOutcome:
    """Delete every deletable finding; one failure never stops the others."""
    outcome = DeleteOutcome()
    for f in ordered([f for f in findings if f.deletable]):
        label = f"{f.kind} {f.name}"
        scope.progress(f"deleting {label} ...")
        try:
            DELETERS[f.kind](scope, f)
        except AlreadyGone:
            outcome.deleted.append(f"{label} (already gone)")
            continue
        except ClientError as exc:
            if _gone(f.kind, exc):
                outcome.deleted.append(f"{label} (already gone)")
                continue
            outcome.errors.append(f"{label}: {error_code(exc)}: {exc}")
            continue
        except (DeleteFailed, WaiterError, BotoCoreError) as exc:
            outcome.errors.append(f"{label}: {exc}")
            continue
        outcome.deleted.append(label)
    return outcome

"""Weights-cache custom resource: copy pinned upstream files into S3, verified by sha256.

Runs in AWS Lambda (Python 3.12) behind the CDK custom-resources Provider framework, with
only the standard library and the boto3 that the runtime ships. Properties:

    BucketName  target bucket (retained on stack deletion)
    Prefix      'kokoro/<revision>/' - one prefix per pinned revision
    Files       [{name, url, sha256, size}, ...] - from stacks/weights_manifest.json

Each file is streamed from its URL into an S3 multipart upload while its sha256 is computed,
so a 310 MB model never sits in memory or on disk. The upload is completed only when the
digest and size match the manifest; otherwise it is aborted, no object appears, and the error
fails the deployment. A file already present with the same sha256 metadata and size is not
downloaded again, so a re-deploy of the same revision transfers nothing. The checked download
itself (download.py) is shared with `make weights`, which mirrors the same manifest locally.
The Lambda runs this as the package `weights_cache` (handler `weights_cache.handler.on_event`).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import boto3
from botocore.exceptions import ClientError

from .download import FileSpec, VerifiedStream, WeightsCacheError, open_url

__all__ = ["FileSpec", "WeightsCacheError", "on_event", "sync_files"]

LOG = logging.getLogger()
LOG.setLevel(logging.INFO)

SHA256_METADATA_KEY = "sha256"
# S3 parts must be >= 5 MiB except the last; 16 MiB keeps ~20 parts for the 310 MB model.
DEFAULT_PART_SIZE = 16 * 1024 * 1024
MIN_PART_SIZE = 5 * 1024 * 1024


def _part_size() -> int:
    value = int(os.environ.get("WEIGHTS_PART_SIZE_BYTES", DEFAULT_PART_SIZE))
    return max(value, MIN_PART_SIZE)


def is_cached(s3: Any, bucket: str, key: str, spec: FileSpec) -> bool:
    """True when the object exists with the pinned sha256 metadata and the pinned size."""
    try:
        head = s3.head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
            return False
        raise
    return (
        head.get("Metadata", {}).get(SHA256_METADATA_KEY) == spec.sha256
        and int(head.get("ContentLength", -1)) == spec.size
    )


def stream_to_s3(s3: Any, bucket: str, key: str, spec: FileSpec) -> None:
    """Stream one file into a multipart upload; complete it only if the sha256 matches."""
    upload = s3.create_multipart_upload(
        Bucket=bucket,
        Key=key,
        Metadata={SHA256_METADATA_KEY: spec.sha256},
        ContentType="application/octet-stream",
    )
    upload_id = upload["UploadId"]
    try:
        parts: list[dict[str, Any]] = []
        part_size = _part_size()
        response, _ = open_url(spec.url)
        with response as body:
            stream = VerifiedStream(spec, body)
            while True:
                data = stream.read(part_size)  # raises if the download breaks off
                if not data and parts:
                    break
                number = len(parts) + 1
                etag = s3.upload_part(
                    Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data
                )["ETag"]
                parts.append({"PartNumber": number, "ETag": etag})
        stream.verify(f"Nothing was written to s3://{bucket}/{key}.")
        s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
        )
    except BaseException:
        # No partial object: an aborted multipart upload leaves nothing behind.
        s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        raise


def sync_files(s3: Any, bucket: str, prefix: str, specs: list[FileSpec]) -> dict[str, int]:
    """Ensure every file is in the bucket under the prefix; returns download/skip counts."""
    downloaded = skipped = 0
    for spec in specs:
        key = prefix + spec.name
        if is_cached(s3, bucket, key, spec):
            LOG.info("already cached: s3://%s/%s (sha256 %s)", bucket, key, spec.sha256)
            skipped += 1
            continue
        LOG.info("caching %s -> s3://%s/%s (%d bytes)", spec.url, bucket, key, spec.size)
        stream_to_s3(s3, bucket, key, spec)
        downloaded += 1
    return {"Downloaded": downloaded, "Skipped": skipped}


def _validate(props: dict[str, Any]) -> tuple[str, str, list[FileSpec]]:
    bucket, prefix, files = props.get("BucketName"), props.get("Prefix"), props.get("Files")
    if not bucket or not isinstance(bucket, str):
        raise WeightsCacheError("property BucketName is required")
    if not isinstance(prefix, str) or not prefix.endswith("/") or prefix.startswith("/"):
        raise WeightsCacheError(f"property Prefix must look like 'kokoro/<rev>/', got {prefix!r}")
    if not isinstance(files, list) or not files:
        raise WeightsCacheError("property Files must be a non-empty list")
    return bucket, prefix, [FileSpec.from_property(f) for f in files]


def on_event(event: dict[str, Any], context: Any = None, s3: Any = None) -> dict[str, Any]:
    """Provider-framework entry point for Create/Update/Delete."""
    request_type = event.get("RequestType")
    if request_type == "Delete":
        # The bucket is retained on destroy and its cached weights with it (the cleanup
        # script reports them); deleting the custom resource touches nothing.
        return {"PhysicalResourceId": event.get("PhysicalResourceId", "weights-cache")}
    if request_type not in ("Create", "Update"):
        raise WeightsCacheError(f"unknown RequestType {request_type!r}")
    bucket, prefix, specs = _validate(event.get("ResourceProperties", {}))
    client = s3 or boto3.client("s3")
    counts = sync_files(client, bucket, prefix, specs)
    LOG.info("weights cache s3://%s/%s: %s", bucket, prefix, counts)
    return {
        "PhysicalResourceId": f"s3://{bucket}/{prefix}",
        "Data": {"ModelDataUrl": f"s3://{bucket}/{prefix}", **counts},
    }

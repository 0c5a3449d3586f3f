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
downloaded again, so a re-deploy of the same revision transfers nothing.
"""

from __future__ import annotations

import hashlib
import logging
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.exceptions import ClientError

LOG = logging.getLogger()
LOG.setLevel(logging.INFO)

SHA256_METADATA_KEY = "sha256"
# S3 parts must be >= 5 MiB except the last; 16 MiB keeps ~20 parts for the 310 MB model.
DEFAULT_PART_SIZE = 16 * 1024 * 1024
MIN_PART_SIZE = 5 * 1024 * 1024
READ_CHUNK = 1024 * 1024
HTTP_TIMEOUT_S = 60
USER_AGENT = "kokoro-voice-weights-cache/1.0"


class WeightsCacheError(RuntimeError):
    """A file could not be cached; the message says which and why."""


@dataclass(frozen=True)
class FileSpec:
    name: str
    url: str
    sha256: str
    size: int

    @classmethod
    def from_property(cls, raw: Any) -> FileSpec:
        if not isinstance(raw, dict):
            raise WeightsCacheError(f"file entry must be an object, got {raw!r}")
        missing = [k for k in ("name", "url", "sha256", "size") if not raw.get(k)]
        if missing:
            raise WeightsCacheError(f"file entry {raw!r} lacks {', '.join(missing)}")
        try:
            size = int(raw["size"])
        except (TypeError, ValueError) as exc:
            raise WeightsCacheError(f"file {raw['name']!r}: size {raw['size']!r}") from exc
        return cls(str(raw["name"]), str(raw["url"]), str(raw["sha256"]).lower(), size)


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


def _open(url: str) -> Any:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})  # noqa: S310
    try:
        return urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S)  # noqa: S310
    except urllib.error.HTTPError as exc:
        raise WeightsCacheError(f"download of {url} failed: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise WeightsCacheError(f"download of {url} failed: {exc}") from exc


def _read_part(body: Any, size: int) -> bytes:
    """Read up to `size` bytes; short reads from the socket are joined until EOF."""
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = body.read(min(READ_CHUNK, remaining))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


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
        digest = hashlib.sha256()
        parts: list[dict[str, Any]] = []
        total = 0
        part_size = _part_size()
        with _open(spec.url) as body:
            while True:
                data = _read_part(body, part_size)
                if not data and parts:
                    break
                digest.update(data)
                total += len(data)
                if total > spec.size:
                    raise WeightsCacheError(
                        f"{spec.name}: {spec.url} sent more than the pinned {spec.size} bytes; "
                        "the upstream file changed or the manifest is wrong"
                    )
                number = len(parts) + 1
                etag = s3.upload_part(
                    Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data
                )["ETag"]
                parts.append({"PartNumber": number, "ETag": etag})
                if len(data) < part_size:
                    break
        actual = digest.hexdigest()
        if actual != spec.sha256 or total != spec.size:
            raise WeightsCacheError(
                f"checksum mismatch for {spec.name} from {spec.url}: expected sha256 "
                f"{spec.sha256} ({spec.size} bytes), got {actual} ({total} bytes). Nothing was "
                f"written to s3://{bucket}/{key}. If upstream legitimately changed, pin a new "
                "revision in stacks/weights_manifest.json."
            )
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

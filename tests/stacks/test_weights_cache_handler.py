"""Weights-cache custom resource handler against moto S3 and a loopback file host.

The loopback file host (tests/support/file_host.py) stands in for the upstream hosts (GitHub
releases, Hugging Face); it counts requests so idempotency is measured, not assumed.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from stacks.weights_cache.handler import WeightsCacheError, on_event
from tests.support.file_host import FileHost

BUCKET = "kokoro-weights-test"
PREFIX = "kokoro/test-rev/"
MODEL = os.urandom(11 * 1024 * 1024 + 123)  # three 5 MiB parts, the last one short
CONFIG = b'{"vocab": {"a": 1}}' * 50


@pytest.fixture
def host() -> Iterator[FileHost]:
    with FileHost({"kokoro.onnx": MODEL, "config.json": CONFIG}) as server:
        yield server


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("WEIGHTS_PART_SIZE_BYTES", str(5 * 1024 * 1024))
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def _file(host: FileHost, name: str, body: bytes, path: str | None = None, **override: Any):
    entry = {
        "name": name,
        "url": host.url(path or f"/files/{name}"),
        "sha256": hashlib.sha256(body).hexdigest(),
        "size": str(len(body)),  # CloudFormation passes numbers as strings
    }
    entry.update(override)
    return entry


def _event(request_type: str, files: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    event = {
        "RequestType": request_type,
        "ResourceProperties": {
            "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:x",
            "BucketName": BUCKET,
            "Prefix": PREFIX,
            "Files": files,
        },
    }
    event.update(extra)
    return event


def _files(host: FileHost) -> list[dict[str, str]]:
    return [
        _file(host, "kokoro.onnx", MODEL, path="/redirect/kokoro.onnx"),
        _file(host, "config.json", CONFIG),
    ]


def _exists(s3: Any, key: str) -> bool:
    try:
        s3.head_object(Bucket=BUCKET, Key=key)
    except ClientError as exc:
        assert exc.response["Error"]["Code"] == "404"
        return False
    return True


def _pending_uploads(s3: Any) -> list[Any]:
    return s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])


def test_create_streams_files_with_checksum_metadata(s3: Any, host: FileHost) -> None:
    result = on_event(_event("Create", _files(host)), None, s3)
    assert result["PhysicalResourceId"] == f"s3://{BUCKET}/{PREFIX}"
    assert result["Data"] == {
        "ModelDataUrl": f"s3://{BUCKET}/{PREFIX}",
        "Downloaded": 2,
        "Skipped": 0,
    }
    for name, body in (("kokoro.onnx", MODEL), ("config.json", CONFIG)):
        obj = s3.get_object(Bucket=BUCKET, Key=PREFIX + name)
        assert obj["Body"].read() == body
        assert obj["Metadata"] == {"sha256": hashlib.sha256(body).hexdigest()}
    # The redirect was followed, each file fetched once.
    assert host.requests == Counter(
        {"/redirect/kokoro.onnx": 1, "/files/kokoro.onnx": 1, "/files/config.json": 1}
    )
    assert _pending_uploads(s3) == []


def _after_a_deploy(s3: Any, host: FileHost, request_type: str) -> tuple[dict[str, Any], int]:
    """The revision is created, then `request_type` comes for it: that event's result and how
    many requests the host had seen before it."""
    on_event(_event("Create", _files(host)), None, s3)
    before = host.total_requests()
    event = _event(request_type, _files(host), PhysicalResourceId=f"s3://{BUCKET}/{PREFIX}")
    return on_event(event, None, s3), before


def test_second_deploy_of_same_revision_downloads_nothing(s3: Any, host: FileHost) -> None:
    result, before = _after_a_deploy(s3, host, "Update")
    assert result["Data"]["Downloaded"] == 0
    assert result["Data"]["Skipped"] == 2
    assert host.total_requests() == before


def test_object_with_other_checksum_is_replaced(s3: Any, host: FileHost) -> None:
    s3.put_object(
        Bucket=BUCKET, Key=PREFIX + "config.json", Body=b"stale", Metadata={"sha256": "0" * 64}
    )
    result = on_event(_event("Create", [_file(host, "config.json", CONFIG)]), None, s3)
    assert result["Data"]["Downloaded"] == 1
    assert s3.get_object(Bucket=BUCKET, Key=PREFIX + "config.json")["Body"].read() == CONFIG


def test_checksum_mismatch_fails_and_leaves_no_object(s3: Any, host: FileHost) -> None:
    wrong = _file(host, "kokoro.onnx", MODEL, sha256="f" * 64)
    with pytest.raises(WeightsCacheError, match=r"checksum mismatch for kokoro\.onnx") as info:
        on_event(_event("Create", [wrong]), None, s3)
    message = str(info.value)
    assert "expected sha256 " + "f" * 64 in message
    assert hashlib.sha256(MODEL).hexdigest() in message
    assert "Nothing was written" in message
    assert not _exists(s3, PREFIX + "kokoro.onnx")
    assert _pending_uploads(s3) == []  # the multipart upload was aborted


def test_upstream_larger_than_pinned_size_fails(s3: Any, host: FileHost) -> None:
    short = _file(host, "kokoro.onnx", MODEL, size=str(6 * 1024 * 1024))
    with pytest.raises(WeightsCacheError, match="sent more than the pinned"):
        on_event(_event("Create", [short]), None, s3)
    assert not _exists(s3, PREFIX + "kokoro.onnx")
    assert _pending_uploads(s3) == []


def test_http_404_fails_with_the_url(s3: Any, host: FileHost) -> None:
    missing = _file(host, "gone.bin", b"x")
    with pytest.raises(
        WeightsCacheError,
        match=r"download of http://127\.0\.0\.1:\d+/files/gone\.bin failed: HTTP 404",
    ):
        on_event(_event("Create", [missing]), None, s3)
    assert not _exists(s3, PREFIX + "gone.bin")
    assert _pending_uploads(s3) == []


def test_unreachable_host_fails_clearly(s3: Any) -> None:
    # A port that was just closed: nothing listens there.
    closed = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = closed.server_address[1]
    closed.server_close()
    spec = {
        "name": "a.bin",
        "url": f"http://127.0.0.1:{port}/a.bin",
        "sha256": "0" * 64,
        "size": "1",
    }
    with pytest.raises(WeightsCacheError, match=r"download of .* failed"):
        on_event(_event("Create", [spec]), None, s3)
    assert _pending_uploads(s3) == []


def test_delete_leaves_the_retained_bucket_alone(s3: Any, host: FileHost) -> None:
    result, before = _after_a_deploy(s3, host, "Delete")
    assert result == {"PhysicalResourceId": f"s3://{BUCKET}/{PREFIX}"}
    assert _exists(s3, PREFIX + "kokoro.onnx")
    assert _exists(s3, PREFIX + "config.json")
    assert host.total_requests() == before


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"Prefix": "kokoro/no-slash"}, "Prefix must look like"),
        ({"Prefix": "/kokoro/x/"}, "Prefix must look like"),
        ({"BucketName": ""}, "BucketName is required"),
        ({"Files": []}, "Files must be a non-empty list"),
        ({"Files": [{"name": "a", "url": "http://x"}]}, "lacks sha256, size"),
    ],
)
def test_bad_properties_are_rejected(s3: Any, props: dict[str, Any], message: str) -> None:
    event = _event("Create", [{"name": "a", "url": "u", "sha256": "0" * 64, "size": "1"}])
    event["ResourceProperties"].update(props)
    with pytest.raises(WeightsCacheError, match=message):
        on_event(event, None, s3)


def test_unknown_request_type(s3: Any) -> None:
    with pytest.raises(WeightsCacheError, match="unknown RequestType"):
        on_event({"RequestType": "Rollback"}, None, s3)


def test_download_broken_off_mid_file_fails_and_leaves_no_object(s3: Any, host: FileHost) -> None:
    host.cut_after["kokoro.onnx"] = 6 * 1024 * 1024 + 1  # inside the second 5 MiB part
    with pytest.raises(WeightsCacheError, match=r"broke off after \d+ of the pinned"):
        on_event(_event("Create", [_file(host, "kokoro.onnx", MODEL)]), None, s3)
    assert not _exists(s3, PREFIX + "kokoro.onnx")
    assert _pending_uploads(s3) == []

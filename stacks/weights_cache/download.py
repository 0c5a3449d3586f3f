"""Downloading one pinned weights file with its size and sha256 checked while it streams.

Shared by the two mirrors of stacks/weights_manifest.json: the weights-cache Lambda
(handler.py, into an S3 multipart upload) and `make weights` (fetch_weights, into a local
directory, resumable). Standard library only: the Lambda runs it with nothing else installed.
"""

from __future__ import annotations

import hashlib
import http.client
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

READ_CHUNK = 1024 * 1024
HTTP_TIMEOUT_S = 60
USER_AGENT = "kokoro-voice-weights-cache/1.0"
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-\d+/(\d+|\*)$")


class WeightsCacheError(RuntimeError):
    """A file could not be cached; the message says which and why."""


class RangeNotSatisfiable(WeightsCacheError):
    """The host has no bytes from the requested offset on (the file is shorter than that)."""


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


def open_url(url: str, offset: int = 0) -> tuple[Any, int]:
    """GET url, from byte `offset` if the host honours a Range request.

    Returns the response and the offset its body starts at: `offset` when the host answered
    206 for that range, 0 when it sent the whole file (a host may ignore Range)."""
    headers = {"User-Agent": USER_AGENT}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)  # noqa: S310
    try:
        response = urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S)  # noqa: S310
    except urllib.error.HTTPError as exc:
        kind = RangeNotSatisfiable if exc.code == 416 and offset else WeightsCacheError
        raise kind(f"download of {url} failed: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise WeightsCacheError(f"download of {url} failed: {exc}") from exc
    if offset and response.status == 206:
        match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
        if match is None or int(match.group(1)) != offset:
            response.close()
            raise WeightsCacheError(
                f"download of {url}: asked for bytes from {offset}, the host answered "
                f"Content-Range {response.headers.get('Content-Range')!r}"
            )
        return response, offset
    return response, 0


class VerifiedStream:
    """Reads a download while hashing and counting it against the pinned size and sha256.

    `offset` bytes already held elsewhere (a resumed download) are counted in, their digest
    passed as `digest`. More bytes than pinned raise at once; `verify()` at the end raises
    unless both size and digest match.
    """

    def __init__(self, spec: FileSpec, body: Any, digest: Any = None, offset: int = 0) -> None:
        self.spec = spec
        self._body = body
        self.digest = digest or hashlib.sha256()
        self.total = offset

    def read(self, size: int) -> bytes:
        """Up to `size` bytes (short socket reads joined); b"" at the end of the body."""
        chunks: list[bytes] = []
        remaining = size
        while remaining > 0:
            try:
                chunk = self._body.read(min(READ_CHUNK, remaining))
            except (OSError, http.client.HTTPException) as exc:  # reset, stalled or cut short
                if chunks:
                    break  # hand out what arrived; the next read fails again
                raise WeightsCacheError(
                    f"download of {self.spec.url} broke off after {self.total} bytes: {exc}"
                ) from exc
            if not chunk:
                # The host closed before the pinned length: say so once the bytes that did
                # arrive have been handed out (a resumed download keeps them).
                if self.total < self.spec.size and not chunks:
                    raise WeightsCacheError(
                        f"download of {self.spec.url} broke off after {self.total} of the "
                        f"pinned {self.spec.size} bytes (connection dropped, or the upstream "
                        "file changed)"
                    )
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            self.total += len(chunk)
            self.digest.update(chunk)
            if self.total > self.spec.size:
                raise WeightsCacheError(
                    f"{self.spec.name}: {self.spec.url} sent more than the pinned "
                    f"{self.spec.size} bytes; the upstream file changed or the manifest is wrong"
                )
        return b"".join(chunks)

    def verify(self, nothing_written: str) -> None:
        """Raise unless the whole file arrived with the pinned digest; `nothing_written`
        tells the user what was (not) kept."""
        actual = self.digest.hexdigest()
        if actual != self.spec.sha256 or self.total != self.spec.size:
            raise WeightsCacheError(
                f"checksum mismatch for {self.spec.name} from {self.spec.url}: expected sha256 "
                f"{self.spec.sha256} ({self.spec.size} bytes), got {actual} ({self.total} "
                f"bytes). {nothing_written} If upstream legitimately changed, pin a new "
                "revision in stacks/weights_manifest.json."
            )

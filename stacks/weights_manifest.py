"""Load and validate the pinned weights manifest (stacks/weights_manifest.json).

The manifest is the single source of truth for what the weights cache downloads: every file
is pinned by URL, byte size and sha256. A file without a real checksum fails synth, so an
unpinned download can never reach a deployment.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from stacks.errors import DeployCheckError

MANIFEST_PATH = Path(__file__).with_name("weights_manifest.json")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_REVISION = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class ManifestError(DeployCheckError):
    """The weights manifest is missing, malformed or incomplete."""


@dataclass(frozen=True)
class WeightsFile:
    name: str
    url: str
    sha256: str
    size: int

    def as_properties(self) -> dict[str, str]:
        """Custom-resource properties (CloudFormation passes every value as a string)."""
        return {"name": self.name, "url": self.url, "sha256": self.sha256, "size": str(self.size)}


@dataclass(frozen=True)
class WeightsRevision:
    name: str
    description: str
    files: tuple[WeightsFile, ...]

    @property
    def prefix(self) -> str:
        """Bucket prefix of this revision; a new revision never overwrites an old one."""
        return f"kokoro/{self.name}/"


def _fill_hint(name: str, url: str) -> str:
    return (
        f"compute it with `curl -sL '{url}' | sha256sum` (and the size with "
        f"`curl -sL '{url}' | wc -c`) and put it into the entry for {name!r} in {MANIFEST_PATH}"
    )


def _parse_file(revision: str, raw: object) -> WeightsFile:
    if not isinstance(raw, dict):
        raise ManifestError(f"revision {revision!r}: every file entry must be an object")
    name, url = raw.get("name"), raw.get("url")
    if not isinstance(name, str) or not _FILE_NAME.match(name):
        raise ManifestError(f"revision {revision!r}: file name {name!r} is missing or invalid")
    if not isinstance(url, str) or not url.startswith("https://"):
        raise ManifestError(f"revision {revision!r}, file {name!r}: url must be an https:// URL")
    sha256 = raw.get("sha256")
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise ManifestError(
            f"revision {revision!r}, file {name!r}: no valid sha256 pinned (got {sha256!r}); "
            + _fill_hint(name, url)
        )
    size = raw.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ManifestError(
            f"revision {revision!r}, file {name!r}: size must be a positive byte count "
            f"(got {size!r}); " + _fill_hint(name, url)
        )
    return WeightsFile(name=name, url=url, sha256=sha256, size=size)


def load_revision(revision: str, path: Path = MANIFEST_PATH) -> WeightsRevision:
    """Return one pinned revision from the manifest, or raise ManifestError saying why not."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ManifestError(f"weights manifest not found: {path}") from exc
    except json.JSONDecodeError as exc:
        raise ManifestError(f"weights manifest {path} is not valid JSON: {exc}") from exc
    revisions = data.get("revisions") if isinstance(data, dict) else None
    if not isinstance(revisions, dict) or not revisions:
        raise ManifestError(f"weights manifest {path} has no 'revisions' object")
    if revision not in revisions:
        known = ", ".join(sorted(revisions))
        raise ManifestError(
            f"weights_revision {revision!r} is not in {path}; known revisions: {known}"
        )
    if not _REVISION.match(revision):
        raise ManifestError(
            f"revision name {revision!r} must be lower-case letters, digits, '.', '_' or '-' "
            "(it becomes an S3 prefix)"
        )
    entry = revisions[revision]
    files_raw = entry.get("files") if isinstance(entry, dict) else None
    if not isinstance(files_raw, list) or not files_raw:
        raise ManifestError(f"revision {revision!r} lists no files")
    files = tuple(_parse_file(revision, raw) for raw in files_raw)
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise ManifestError(f"revision {revision!r} lists a file name twice: {names}")
    return WeightsRevision(
        name=revision, description=str(entry.get("description", "")), files=files
    )

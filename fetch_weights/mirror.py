"""Mirror one pinned revision into a local directory: resumable, each file checked against
its pinned size and sha256 with the download code the weights-cache Lambda uses
(stacks/weights_cache/download.py).

A file is fetched into `<name>.part`; an interrupted run leaves that part behind and the next
run asks the host for the rest (HTTP Range), hashing the part first. Only a file whose digest
matches is renamed into place, and `complete.json` is written after the last one.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from devkit.local_weights import COMPLETE_MARKER, write_marker
from fetch_weights.progress import ProgressBar
from stacks.weights_cache.download import (
    READ_CHUNK,
    FileSpec,
    RangeNotSatisfiable,
    VerifiedStream,
    WeightsCacheError,
    open_url,
)
from stacks.weights_manifest import WeightsRevision

PART_SUFFIX = ".part"


class FileStatus(StrEnum):
    PRESENT = "already there, sha256 ok"
    DOWNLOADED = "downloaded, sha256 ok"
    RESUMED = "resumed, sha256 ok"


def sha256_of(path: Path) -> Any:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(READ_CHUNK):
            digest.update(chunk)
    return digest


def fetch_file(spec: FileSpec, directory: Path, out: TextIO | None = None) -> FileStatus:
    """Make `directory/spec.name` the pinned file; how it got there."""
    final = directory / spec.name
    in_place = final.is_file() and final.stat().st_size == spec.size
    if in_place and sha256_of(final).hexdigest() == spec.sha256:
        return FileStatus.PRESENT
    part = directory / (spec.name + PART_SUFFIX)
    held = part.stat().st_size if part.is_file() else 0
    if held > spec.size:  # not a prefix of this file
        part.unlink()
        held = 0
    digest = sha256_of(part) if held else hashlib.sha256()
    resumed = held > 0
    if held == spec.size:  # complete but not yet checked and renamed (a run stopped there)
        stream = VerifiedStream(spec, None, digest, held)
    else:
        stream, resumed = _download(spec, part, held, digest, out)
    try:
        stream.verify(f"The download was discarded ({part.name} removed).")
    except WeightsCacheError:
        part.unlink(missing_ok=True)
        raise
    part.replace(final)
    return FileStatus.RESUMED if resumed else FileStatus.DOWNLOADED


def _download(
    spec: FileSpec, part: Path, held: int, digest: Any, out: TextIO | None
) -> tuple[VerifiedStream, bool]:
    """Fetch the rest of the file into `part`; the stream read, and whether it resumed."""
    try:
        response, start = open_url(spec.url, held)
    except RangeNotSatisfiable:  # the upstream file is shorter than the part: start over
        response, start = open_url(spec.url)
    if start != held:  # the host sent the whole file: start over
        digest, held = hashlib.sha256(), 0
    progress = ProgressBar(spec.name, spec.size, held, out)
    with response as body, part.open("ab" if held else "wb") as file:
        stream = VerifiedStream(spec, body, digest, held)
        try:
            while data := stream.read(READ_CHUNK):
                file.write(data)
                progress.update(len(data))
        except WeightsCacheError as exc:
            file.flush()
            progress.finish("interrupted")
            raise WeightsCacheError(
                f"{exc}. {stream.total} bytes are kept in {part}; run `make weights` again "
                "to resume."
            ) from exc
    progress.finish("received")
    return stream, held > 0


def mirror(
    revision: WeightsRevision, directory: Path, default_voice: str, out: TextIO | None = None
) -> dict[str, FileStatus]:
    """Fetch every file of the revision into `directory`, then mark it complete."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / COMPLETE_MARKER).unlink(missing_ok=True)  # incomplete until the end
    statuses: dict[str, FileStatus] = {}
    for pinned in revision.files:
        spec = FileSpec(pinned.name, pinned.url, pinned.sha256, pinned.size)
        statuses[spec.name] = fetch_file(spec, directory, out)
    files = [{"name": f.name, "sha256": f.sha256, "size": f.size} for f in revision.files]
    write_marker(directory, revision.name, default_voice, files)
    return statuses

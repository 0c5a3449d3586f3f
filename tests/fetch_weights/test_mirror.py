"""`make weights` against a loopback file host: pinned files land with their sha256 checked,
a second run downloads nothing, an interrupted download resumes where it stopped (HTTP Range),
and nothing unchecked is ever marked complete or used."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from devkit import local_weights
from fetch_weights.__main__ import app_context
from fetch_weights.__main__ import main as fetch_main
from fetch_weights.mirror import PART_SUFFIX, FileStatus, mirror
from stacks.weights_cache.download import WeightsCacheError
from stacks.weights_manifest import WeightsFile, WeightsRevision
from tests.support.file_host import FileHost

MODEL = os.urandom(3 * 1024 * 1024 + 777)
VOICES = os.urandom(256 * 1024 + 3)
CONFIG = b'{"vocab": {"a": 1}}'
REVISION = "test-rev"
VOICE = "af_test"


@pytest.fixture
def host() -> Iterator[FileHost]:
    with FileHost({"model.onnx": MODEL, "voices.bin": VOICES, "config.json": CONFIG}) as server:
        yield server


def pinned(host: FileHost, name: str, body: bytes, path: str | None = None) -> WeightsFile:
    return WeightsFile(
        name, host.url(path or f"/files/{name}"), hashlib.sha256(body).hexdigest(), len(body)
    )


def revision(host: FileHost, *files: WeightsFile) -> WeightsRevision:
    files = files or (
        pinned(host, "model.onnx", MODEL, "/redirect/model.onnx"),
        pinned(host, "voices.bin", VOICES),
        pinned(host, "config.json", CONFIG),
    )
    return WeightsRevision(REVISION, "test", files)


def test_first_run_downloads_checks_and_marks_complete(host: FileHost, tmp_path: Path) -> None:
    out = io.StringIO()
    statuses = mirror(revision(host), tmp_path / REVISION, VOICE, out)
    names = ("model.onnx", "voices.bin", "config.json")
    assert statuses == dict.fromkeys(names, FileStatus.DOWNLOADED)
    assert (tmp_path / REVISION / "model.onnx").read_bytes() == MODEL
    assert (tmp_path / REVISION / "voices.bin").read_bytes() == VOICES
    assert not list((tmp_path / REVISION).glob(f"*{PART_SUFFIX}"))
    found = local_weights.find(tmp_path)
    assert found == local_weights.LocalWeights(tmp_path / REVISION, REVISION, VOICE)
    assert found.server_env() == {
        "KOKORO_MODEL_DIR": str(tmp_path / REVISION),
        "KOKORO_VOICE": VOICE,
    }
    progress = out.getvalue()
    assert "model.onnx" in progress and "100.0%" in progress and "received" in progress


def test_second_run_downloads_nothing(host: FileHost, tmp_path: Path) -> None:
    mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    before = host.total_requests()
    statuses = mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    assert set(statuses.values()) == {FileStatus.PRESENT}
    assert host.total_requests() == before
    assert local_weights.find(tmp_path) is not None


def test_interrupted_download_resumes_from_its_part(host: FileHost, tmp_path: Path) -> None:
    cut = 1024 * 1024 + 5
    host.cut_after["model.onnx"] = cut
    with pytest.raises(WeightsCacheError, match=r"broke off .* run `make weights` again"):
        mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    part = tmp_path / REVISION / ("model.onnx" + PART_SUFFIX)
    assert part.stat().st_size == cut
    assert local_weights.find(tmp_path) is None  # nothing half-done is used

    statuses = mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    assert statuses["model.onnx"] == FileStatus.RESUMED
    assert (tmp_path / REVISION / "model.onnx").read_bytes() == MODEL
    assert ("/files/model.onnx", f"bytes={cut}-") in host.ranges
    # Every byte of every file crossed the wire once: the resumed part was not fetched again.
    assert host.bytes_sent == len(MODEL) + len(VOICES) + len(CONFIG)


def test_host_that_ignores_range_is_read_from_the_start(tmp_path: Path) -> None:
    with FileHost({"model.onnx": MODEL}, honour_range=False) as host:
        files = (pinned(host, "model.onnx", MODEL),)
        host.cut_after["model.onnx"] = 4096
        with pytest.raises(WeightsCacheError):
            mirror(revision(host, *files), tmp_path / REVISION, VOICE, io.StringIO())
        statuses = mirror(revision(host, *files), tmp_path / REVISION, VOICE, io.StringIO())
    assert statuses["model.onnx"] == FileStatus.DOWNLOADED
    assert (tmp_path / REVISION / "model.onnx").read_bytes() == MODEL


def test_checksum_mismatch_keeps_nothing(host: FileHost, tmp_path: Path) -> None:
    wrong = WeightsFile("model.onnx", host.url("/files/model.onnx"), "0" * 64, len(MODEL))
    with pytest.raises(WeightsCacheError, match=r"checksum mismatch for model\.onnx") as info:
        mirror(revision(host, wrong), tmp_path / REVISION, VOICE, io.StringIO())
    assert hashlib.sha256(MODEL).hexdigest() in str(info.value)
    assert list((tmp_path / REVISION).iterdir()) == []
    assert local_weights.find(tmp_path) is None


def test_corrupted_file_is_downloaded_again(host: FileHost, tmp_path: Path) -> None:
    mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    model = tmp_path / REVISION / "model.onnx"
    model.write_bytes(bytes(len(MODEL)))  # same size, other bytes
    statuses = mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    assert statuses["model.onnx"] == FileStatus.DOWNLOADED
    assert model.read_bytes() == MODEL


def test_missing_upstream_file_is_a_clear_error(host: FileHost, tmp_path: Path) -> None:
    gone = WeightsFile("gone.bin", host.url("/files/gone.bin"), "0" * 64, 1)
    with pytest.raises(WeightsCacheError, match=r"download of http://127\.0\.0\.1:\d+/files/gone"):
        mirror(revision(host, gone), tmp_path / REVISION, VOICE, io.StringIO())


def test_a_copy_changed_after_download_is_not_used(host: FileHost, tmp_path: Path) -> None:
    mirror(revision(host), tmp_path / REVISION, VOICE, io.StringIO())
    (tmp_path / REVISION / "voices.bin").write_bytes(b"truncated")
    assert local_weights.find(tmp_path) is None
    assert local_weights.server_env(tmp_path) == {}


def test_cache_root_follows_the_environment(tmp_path: Path) -> None:
    assert local_weights.cache_root({local_weights.CACHE_ENV: str(tmp_path)}) == tmp_path
    xdg = local_weights.cache_root({"XDG_CACHE_HOME": str(tmp_path)})
    assert xdg == tmp_path / "kokoro-voice-agent" / "weights"


def test_cli_names_the_known_revisions_for_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert fetch_main(["--revision", "no-such-revision"]) == 2
    err = capsys.readouterr().err
    assert "no-such-revision" in err and "known revisions: kokoro-82m-" in err


def test_a_whole_unchecked_part_is_checked_without_downloading(
    host: FileHost, tmp_path: Path
) -> None:
    directory = tmp_path / REVISION
    directory.mkdir()
    (directory / ("config.json" + PART_SUFFIX)).write_bytes(CONFIG)  # a run stopped there
    files = (pinned(host, "config.json", CONFIG),)
    statuses = mirror(revision(host, *files), directory, VOICE, io.StringIO())
    assert statuses == {"config.json": FileStatus.RESUMED}
    assert host.total_requests() == 0
    assert (directory / "config.json").read_bytes() == CONFIG


def test_revision_and_voice_are_read_as_the_cdk_app_reads_them(tmp_path: Path) -> None:
    from stacks.config import DEFAULTS

    cdk_json = tmp_path / "cdk.json"
    cdk_json.write_text('{"context": {"weights_revision": "rev-from-context"}}')
    assert app_context("weights_revision", cdk_json) == "rev-from-context"
    assert app_context("voice", cdk_json) == DEFAULTS["voice"]  # not in cdk.json: the app's

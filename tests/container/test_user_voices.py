"""A deployment's own voices (KOKORO_USER_VOICES_DIR) on the real model: good files join the
official voices, are listed as `user_file` and speak as the arrays they hold; every bad file
or voice is skipped with a warning naming it and why, and the server still starts."""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from kokoro_server.config import Settings
from kokoro_server.engine.model_files import from_pypi_packages
from kokoro_server.engine.user_voices import load_user_voices
from kokoro_server.engine.voices import mix, parse_voice
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.log_records import log_fields
from tests.support.one_shot import post
from tests.support.servers import ThreadedServer

pytestmark = pytest.mark.model

TEXT = "今日はいい天気です。"
GOOD = ("jf_flat", "jf_mine", "jf_mix", "jm_copy")
# file -> the reason its warning gives (the voice, where the file holds several).
BAD = {
    "jf_wide.npy": "shape (510, 1, 128)",
    "jf_nan.npy": "NaN or infinite",
    "jf_ints.npy": "dtype int32, not a float type",
    "xf_lang.npy": "no Kokoro language",
    "jf-dash.npy": "not a Kokoro voice name",
    "jf_alpha.npy": "an official voice's",
    "jf_text.npy": "not an .npy array: it starts with b'not nu'",
    "notes.txt": "not a voice file",
    "pack.npz": "shape (10, 256)",
    "packed.npy": "not an .npy array: it starts with b'PK",
    "jf_cut.npy": "cannot read it with numpy",
    "cut.bin": "cannot read it with numpy",
    "zz_later.npz": "already taken by an earlier user voice file",
}


def _official() -> dict[str, np.ndarray]:
    with np.load(from_pypi_packages().voices) as npz:
        return {name: np.asarray(npz[name]) for name in npz.files}


def write_voices(root: Path, official: dict[str, np.ndarray]) -> Path:
    """Good and bad user voice files, as a deployment might upload them."""
    alpha = official["jf_alpha"]
    np.save(root / "jf_mine.npy", alpha * 1.0)  # a copy of jf_alpha under a new name
    np.save(root / "jf_mix.npy", mix(official, parse_voice("jf_alpha+jf_nezumi")))
    np.save(root / "jf_wide.npy", alpha[:, :, :128])
    np.save(root / "jf_nan.npy", np.where(np.arange(256) == 7, np.nan, alpha))
    np.save(root / "jf_ints.npy", alpha.astype(np.int32))
    np.save(root / "xf_lang.npy", alpha)
    np.save(root / "jf-dash.npy", alpha)
    np.save(root / "jf_alpha.npy", alpha)
    (root / "jf_text.npy").write_text("not numpy", encoding="utf-8")
    np.save(root / "jf_cut.npy", alpha)
    whole = (root / "jf_cut.npy").read_bytes()
    (root / "jf_cut.npy").write_bytes(whole[: len(whole) // 2])  # an interrupted upload
    np.savez(root / "cut.npz", jf_cut2=alpha)
    whole = (root / "cut.npz").read_bytes()
    (root / "cut.bin").write_bytes(whole[: len(whole) // 2])
    (root / "cut.npz").unlink()
    (root / "notes.txt").write_text("my voices", encoding="utf-8")
    # A pack: one voice stored as (510, 256), one of a wrong shape.
    flat = official["jf_gongitsune"].reshape(510, 256)
    np.savez(root / "pack.npz", jf_flat=flat, jf_short=flat[:10])
    np.savez(root / "packed.npz", jf_x=alpha)
    shutil.move(root / "packed.npz", root / "packed.npy")
    nested = root / "more"  # an S3 prefix's folders arrive as folders
    nested.mkdir()
    np.savez(nested / "voices.npz", jm_copy=official["jm_kumo"])
    shutil.move(nested / "voices.npz", nested / "voices.bin")
    np.savez(root / "zz_later.npz", jf_mine=official["jf_nezumi"])
    return root


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, base_settings) -> Iterator[tuple[SynthesisService, list[dict]]]:
    """The real model with the user voices above, and the warnings its load logged."""
    root = write_voices(tmp_path_factory.mktemp("user_voices"), _official())
    settings = dataclasses.replace(base_settings, user_voices_dir=str(root))
    handler = _Records()
    logger = logging.getLogger("kokoro.voices")
    logger.addHandler(handler)
    try:
        service = SynthesisService(settings)
        service.load()
    finally:
        logger.removeHandler(handler)
    assert service.ready, service.failure
    skipped = [log_fields(r) for r in handler.records if r.getMessage() == "user voice skipped"]
    yield service, skipped
    service.shutdown()


@pytest.fixture(scope="module")
def server(loaded, base_settings: Settings) -> Iterator[ThreadedServer]:
    running = ThreadedServer(base_settings, loaded[0]).start()
    yield running
    running.stop()


def test_good_voices_are_listed_as_user_files(server, loaded):
    listed = httpx.get(f"{server.http}/voices", timeout=5).json()["voices"]
    user = sorted(v["name"] for v in listed if v["user_file"])
    assert user == list(GOOD)
    official = {v["name"] for v in listed if not v["user_file"]}
    assert official == set(_official())
    assert {v["language"] for v in listed if v["name"] in GOOD} == {"ja"}
    assert sorted(loaded[0].engine.user_voices) == list(GOOD)


def test_each_bad_file_is_skipped_once_with_its_reason(loaded):
    warnings = loaded[1]
    by_file = {Path(w["file"]).name: w["reason"] for w in warnings}
    assert len(warnings) == len(BAD), warnings  # one warning each, nothing else
    for name, reason in BAD.items():
        assert reason in by_file[name], (name, by_file[name])
    engine = loaded[0].engine
    assert {"jf_short", "jf_x", "jf_wide", "xf_lang"}.isdisjoint(engine.voices)
    # The official voice kept its own vectors; the later file's jf_mine did not replace it.
    assert np.array_equal(engine.voices["jf_alpha"], _official()["jf_alpha"])
    assert np.array_equal(engine.voices["jf_mine"], _official()["jf_alpha"])


def test_a_user_copy_of_a_voice_speaks_as_that_voice(server):
    mine = post(server, {"text": TEXT, "voice": "jf_mine", "format": "pcm"})
    alpha = post(server, {"text": TEXT, "voice": "jf_alpha", "format": "pcm"})
    assert mine.status_code == alpha.status_code == 200
    assert len(mine.content) > 24000 and mine.content == alpha.content


def test_user_voices_speak_as_the_arrays_they_hold(loaded):
    engine = loaded[0].engine
    mixed = engine.synthesize(TEXT, "jf_mix")
    assert np.array_equal(mixed, engine.synthesize(TEXT, "jf_alpha+jf_nezumi"))
    flat = engine.synthesize(TEXT, "jf_flat")  # stored as (510, 256)
    assert np.array_equal(flat, engine.synthesize(TEXT, "jf_gongitsune"))
    # A blend of a user voice and an official one is the blend of the arrays.
    assert np.array_equal(
        engine.synthesize(TEXT, "jf_mine+jf_nezumi"), engine.synthesize(TEXT, "jf_alpha+jf_nezumi")
    )


def test_no_directory_and_a_missing_one_add_nothing(tmp_path, caplog):
    assert load_user_voices("", {}) == {}
    with caplog.at_level(logging.WARNING, logger="kokoro.voices"):
        assert load_user_voices(str(tmp_path / "absent"), {}) == {}
    assert [r.getMessage() for r in caplog.records] == ["user voices directory missing"]

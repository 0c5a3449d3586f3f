"""A deployment's own voices, read from KOKORO_USER_VOICES_DIR beside the official ones.

PyTorch is not a dependency, so only the formats numpy reads are accepted: `<name>.npy` (one
voice, named by its file's stem) and `.npz` / `.bin` packs (name -> array, the layout of the
official `voices-v1.0.bin`). Each voice is checked before it joins the engine's voices: a
Kokoro pack's shape (510, 1, 256), or (510, 256) reshaped to it, a float dtype, finite
values, and a name in Kokoro's form whose first letter is a language the server speaks and
that no official voice already has. A file or voice that fails is skipped with one warning
saying which and why: one bad upload must not keep the endpoint from starting.
"""

from __future__ import annotations

import logging
import re
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from kokoro_server.text.languages import LANGUAGES

log = logging.getLogger("kokoro.voices")

PACK_SHAPE = (510, 1, 256)  # one style vector per input length, as the model takes them
PACK_SUFFIXES = (".npz", ".bin")
VOICE_SUFFIX = ".npy"
NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
NAME = re.compile(r"^[a-z][a-z]_[a-z0-9_]+$")


class BadVoice(ValueError):
    """A user voice that cannot be used; the message says why."""


def check_name(name: str, official: Mapping[str, object], user: Mapping[str, object]) -> None:
    if not NAME.fullmatch(name):
        raise BadVoice(
            f"name {name!r} is not a Kokoro voice name (two letters, '_', then a-z, 0-9 or '_')"
        )
    if name[0] not in LANGUAGES:
        raise BadVoice(
            f"name {name!r} starts with {name[0]!r}, no Kokoro language "
            f"(one of {', '.join(LANGUAGES)})"
        )
    if name in official:
        raise BadVoice(f"name {name!r} is an official voice's: rename the file or the entry")
    if name in user:
        raise BadVoice(f"name {name!r} is already taken by an earlier user voice file")


def check_pack(array: np.ndarray) -> np.ndarray:
    """The voice as the engine keeps it: float32 of PACK_SHAPE."""
    if array.shape == (PACK_SHAPE[0], PACK_SHAPE[2]):
        array = array.reshape(PACK_SHAPE)
    if array.shape != PACK_SHAPE:
        raise BadVoice(f"shape {array.shape}, not {PACK_SHAPE} or (510, 256)")
    if not np.issubdtype(array.dtype, np.floating):
        raise BadVoice(f"dtype {array.dtype}, not a float type")
    if not np.isfinite(array).all():
        raise BadVoice("holds NaN or infinite values")
    return array.astype(np.float32)


def _read(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    """(name, array) for each voice in `path`; raises for a file numpy cannot read."""
    with path.open("rb") as file:
        magic = file.read(len(NPY_MAGIC))
    want = NPY_MAGIC if path.suffix == VOICE_SUFFIX else ZIP_MAGIC
    if not magic.startswith(want):  # numpy would try to read it as a pickle
        kind = "an .npy array" if path.suffix == VOICE_SUFFIX else "an npz pack (a zip)"
        raise BadVoice(f"not {kind}: it starts with {magic!r}")
    if path.suffix == VOICE_SUFFIX:
        yield path.stem, np.load(path, allow_pickle=False)
        return
    with np.load(path, allow_pickle=False) as pack:
        for name in pack.files:
            yield name, np.asarray(pack[name])


def _warn(path: Path, reason: str, voice: str | None = None) -> None:
    fields = {"file": str(path), "reason": reason}
    if voice is not None:
        fields["voice"] = voice
    log.warning("user voice skipped", extra={"fields": fields})


def _from_file(path: Path, voices: dict[str, np.ndarray], official: Mapping[str, object]) -> None:
    try:
        entries = list(_read(path))
    except BadVoice as exc:
        _warn(path, str(exc))
        return
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        _warn(path, f"cannot read it with numpy: {type(exc).__name__}: {exc}")
        return
    if not entries:
        _warn(path, "the pack holds no voices")
    for name, array in entries:
        try:
            check_name(name, official, voices)
            voices[name] = check_pack(array)
        except BadVoice as exc:
            _warn(path, str(exc), name)


def load_user_voices(directory: str, official: Mapping[str, object]) -> dict[str, np.ndarray]:
    """The valid voices of the files under `directory`, by name (files in path order, so a
    name in two files goes to the first); empty for no directory."""
    if not directory:
        return {}
    root = Path(directory)
    if not root.is_dir():
        log.warning("user voices directory missing", extra={"fields": {"directory": str(root)}})
        return {}
    voices: dict[str, np.ndarray] = {}
    # Nested folders too: an S3 prefix may hold them, and they arrive as they were.
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix in (VOICE_SUFFIX, *PACK_SUFFIXES):
            _from_file(path, voices, official)
        else:
            _warn(path, f"not a voice file ({VOICE_SUFFIX}, {' or '.join(PACK_SUFFIXES)})")
    log.info(
        "user voices loaded",
        extra={"fields": {"directory": str(root), "voices": sorted(voices)}},
    )
    return voices

"""A deployment's own voice file, as `KOKORO_USER_VOICES_DIR` carries it: a saved mix of two
official voices under a name of its own, so a test can check that a layer speaks the file
(its audio equals the same mix spelled as a blend) and not the default voice.

The names import without the server package (a framework venv's tests use them against a
server started from the repository's environment); writing the file needs it."""

from __future__ import annotations

from pathlib import Path

USER_VOICE = "jf_saved"  # the file's name is the voice's name
SAVED_BLEND = "jf_alpha:2+jf_nezumi:1"  # what the file holds, spelled as a blend


def write_user_voice(folder: Path) -> Path:
    """`folder/jf_saved.npy`: the weighted mean of the blend's voices, saved as users save one."""
    import numpy as np

    from kokoro_server.engine.model_files import from_pypi_packages
    from kokoro_server.engine.voices import mix, parse_voice

    with np.load(from_pypi_packages().voices) as npz:
        official = {name: np.asarray(npz[name]) for name in npz.files}
    path = folder / f"{USER_VOICE}.npy"
    np.save(path, mix(official, parse_voice(SAVED_BLEND)))
    return path

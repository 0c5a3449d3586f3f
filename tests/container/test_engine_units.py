"""Engine pieces that need no model run: weights discovery, providers, settings.

Cutting long sentences into model calls is tested in test_word_times_units.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kokoro_server.config import Settings
from kokoro_server.engine import model_files
from kokoro_server.engine.model import choose_providers, require_provider
from kokoro_server.serving.serve import parse_args


def write_weights(root, onnx=("kokoro-v1.0.onnx",), vocab=True, voices=True):
    for name in onnx:
        (root / name).write_bytes(b"onnx")
    if vocab:
        (root / "config.json").write_text(json.dumps({"vocab": {"a": 1}}))
    if voices:
        np.savez(root / "voices.npz", af=np.zeros((510, 1, 256), np.float32))


def test_weights_directory_is_read(tmp_path):
    write_weights(tmp_path, onnx=("kokoro-v1.0.onnx", "kokoro-v1.0.int8.onnx"))
    files = model_files.from_directory(tmp_path)
    assert files.model.name == "kokoro-v1.0.onnx"  # full precision preferred
    assert files.vocab == {"a": 1}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"onnx": ()}, "no .onnx"),
        ({"onnx": ("a.onnx", "b.onnx")}, "KOKORO_MODEL_FILE"),
        ({"vocab": False}, "config.json"),
        ({"voices": False}, "voice file"),
    ],
)
def test_incomplete_weights_directory_is_explained(tmp_path, kwargs, message):
    write_weights(tmp_path, **kwargs)
    with pytest.raises(model_files.ModelFilesError, match=message):
        model_files.from_directory(tmp_path)


def test_missing_directory_and_bad_vocab(tmp_path):
    with pytest.raises(model_files.ModelFilesError, match="does not exist"):
        model_files.from_directory(tmp_path / "nope")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(model_files.ModelFilesError, match="no 'vocab'"):
        model_files.read_vocab(tmp_path / "config.json")


def test_cpu_build_uses_cpu_and_refuses_forced_cuda():
    assert choose_providers(Settings(provider="auto")) == ["CPUExecutionProvider"]
    with pytest.raises(RuntimeError, match="cuda"):
        choose_providers(Settings(provider="cuda"))


def test_required_cuda_refuses_a_session_that_fell_back_to_the_cpu():
    # What ONNX Runtime does when the CUDA provider is registered but cannot start.
    cuda = Settings(provider="cuda")
    with pytest.raises(RuntimeError, match=r"KOKORO_PROVIDER=cuda.*KOKORO_PROVIDER=auto"):
        require_provider(cuda, ["CPUExecutionProvider"])
    require_provider(cuda, ["CUDAExecutionProvider", "CPUExecutionProvider"])
    require_provider(Settings(provider="auto"), ["CPUExecutionProvider"])  # fallback allowed


def test_serve_accepts_sagemakers_extra_argument():
    assert parse_args(["serve"]).port is None
    assert parse_args(["serve", "--port", "9000"]).port == 9000


def test_settings_from_env_validates_numbers(monkeypatch):
    monkeypatch.setenv("KOKORO_MAX_SESSIONS", "many")
    with pytest.raises(ValueError, match="KOKORO_MAX_SESSIONS"):
        Settings.from_env()
    monkeypatch.setenv("KOKORO_MAX_SESSIONS", "3")
    assert Settings.from_env().max_sessions == 3

"""Synth-time guards: the Dockerfile LABEL, context validation and the weights manifest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from aws_cdk import App

from stacks.app_builder import REPO_ROOT, build_app
from stacks.config import load_config
from stacks.dockerfile_guard import DockerfileGuardError, has_bidi_label, require_bidi_label
from stacks.weights_manifest import MANIFEST_PATH, ManifestError, load_revision

pytestmark = pytest.mark.synth

LABEL = "com.amazonaws.sagemaker.capabilities.bidirectional-streaming"


@pytest.mark.parametrize(
    "text",
    [
        f"FROM x\nLABEL {LABEL}=true\n",
        f'FROM x\nLABEL {LABEL}="true"\n',
        f"FROM x\nlabel maintainer=me \\\n    {LABEL}=true \\\n    other=1\n",
    ],
)
def test_label_accepted(text: str) -> None:
    assert has_bidi_label(text)


@pytest.mark.parametrize(
    "text",
    [
        "FROM x\n",
        f"FROM x\n# LABEL {LABEL}=true\n",
        f"FROM x\nLABEL {LABEL}=false\n",
        f"FROM x\nLABEL {LABEL}=trueish\n",
        f"FROM x\nENV {LABEL}=true\n",
    ],
)
def test_label_rejected(text: str) -> None:
    assert not has_bidi_label(text)


def test_real_kokoro_dockerfile_passes_the_guard() -> None:
    require_bidi_label(REPO_ROOT / "container" / "Dockerfile")


def test_synth_fails_without_the_label(tmp_path: Path) -> None:
    container = tmp_path / "container"
    shutil.copytree(REPO_ROOT / "container", container)
    dockerfile = container / "Dockerfile"
    dockerfile.write_text(
        "\n".join(line for line in dockerfile.read_text().splitlines() if LABEL not in line)
    )
    with pytest.raises(DockerfileGuardError, match=r"does not carry `LABEL com\.amazonaws"):
        build_app(container_dir=container)


def test_missing_dockerfile_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DockerfileGuardError, match="not found"):
        require_bidi_label(tmp_path / "Dockerfile")


def _config(**context: object):
    return load_config(App(context=context).node)


def test_config_defaults() -> None:
    cfg = _config()
    assert (cfg.instance_type, cfg.min_instances, cfg.max_instances) == ("ml.g5.xlarge", 1, 2)
    assert (cfg.tts_stack_name, cfg.agent_stack_name) == ("KokoroVoice-Tts", "KokoroVoice-Agent")
    assert cfg.endpoint_name == "kokoro-voice-tts"
    assert cfg.runtime_name == "kokoro_voice_agent"
    assert cfg.bedrock_foundation_model_id == "anthropic.claude-haiku-4-5-20251001-v1:0"
    assert cfg.bedrock_model_is_profile
    assert cfg.weights_bucket is None  # the stack creates the bucket


def test_config_parses_command_line_strings() -> None:
    cfg = _config(max_instances="4", initial_instance_count="2", app_name="my-voice")
    assert (cfg.initial_instance_count, cfg.max_instances) == (2, 4)
    assert cfg.tts_stack_name == "MyVoice-Tts"
    assert _config(network_isolation="false").network_isolation is False


def test_plain_model_id_is_not_a_profile() -> None:
    cfg = _config(bedrock_model_id="anthropic.claude-haiku-4-5-20251001-v1:0")
    assert not cfg.bedrock_model_is_profile
    assert cfg.bedrock_foundation_model_id == cfg.bedrock_model_id


@pytest.mark.parametrize("prefix", ["us", "eu", "apac", "jp", "au", "us-gov", "global"])
def test_every_geographic_profile_is_a_profile(prefix: str) -> None:
    cfg = _config(bedrock_model_id=f"{prefix}.anthropic.claude-haiku-4-5-20251001-v1:0")
    assert cfg.bedrock_model_is_profile
    assert cfg.bedrock_foundation_model_id == "anthropic.claude-haiku-4-5-20251001-v1:0"


def test_weights_bucket_name_is_taken_as_given() -> None:
    name = "kokorovoice-tts-weightsbucket670f500a-1x2y3z4w5v6u"
    assert _config(weights_bucket=f" {name} ").weights_bucket == name
    assert _config(weights_bucket="").weights_bucket is None


def test_cleanup_reuse_hint_names_the_key_the_app_reads() -> None:
    # teardown prints `-c <key>=NAME` next to a retained bucket; the app must accept that key.
    from teardown.config import WEIGHTS_BUCKET_CONTEXT_KEY

    name = "kokorovoice-tts-weightsbucket670f500a-1x2y3z4w5v6u"
    assert _config(**{WEIGHTS_BUCKET_CONTEXT_KEY: name}).weights_bucket == name


def test_manifest_revision_is_fully_pinned() -> None:
    revision = load_revision("kokoro-82m-v1.0-onnx-fp32")
    assert revision.prefix == "kokoro/kokoro-82m-v1.0-onnx-fp32/"
    sizes = {f.name: f.size for f in revision.files}
    assert sizes == {
        "kokoro-v1.0.onnx": 325532387,
        "voices-v1.0.bin": 28214398,
        "config.json": 2351,
    }
    for f in revision.files:
        assert f.url.startswith("https://") and len(f.sha256) == 64


def _write_manifest(tmp_path: Path, mutate) -> Path:
    data = json.loads(MANIFEST_PATH.read_text())
    mutate(data["revisions"]["kokoro-82m-v1.0-onnx-fp32"]["files"][0])
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    return path


def test_manifest_without_checksum_fails_with_fill_in_command(tmp_path: Path) -> None:
    path = _write_manifest(tmp_path, lambda f: f.update(sha256="TODO"))
    with pytest.raises(ManifestError, match=r"no valid sha256 pinned.*curl -sL .* \| sha256sum"):
        load_revision("kokoro-82m-v1.0-onnx-fp32", path)


def test_manifest_rejects_plain_http_and_bad_size(tmp_path: Path) -> None:
    path = _write_manifest(tmp_path, lambda f: f.update(url="http://example.com/x"))
    with pytest.raises(ManifestError, match="https://"):
        load_revision("kokoro-82m-v1.0-onnx-fp32", path)
    path = _write_manifest(tmp_path, lambda f: f.update(size=0))
    with pytest.raises(ManifestError, match="positive byte count"):
        load_revision("kokoro-82m-v1.0-onnx-fp32", path)


def test_unknown_revision_lists_known_ones() -> None:
    with pytest.raises(ManifestError, match=r"known revisions: kokoro-82m-v1\.0-onnx-fp32"):
        load_revision("kokoro-v9")

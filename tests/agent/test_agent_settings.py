"""The agent's region: AWS_REGION, then AWS_DEFAULT_REGION, passed explicitly to every AWS
client; without one the agent refuses to start, unless it runs locally (TTS_URL + replay)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kokoro_stream.sagemaker import SageMakerBidiTts

from voice_agent.settings import AgentSettings, EnvVar, declared_vars, env_table
from voice_agent.wiring import tts_transport

DEPLOYED = {"TTS_ENDPOINT_NAME": "kokoro", "BEDROCK_MODEL_ID": "eu.anthropic.claude-test-v1:0"}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "us-west-2"}, "eu-central-1"),
        ({"AWS_DEFAULT_REGION": "us-west-2"}, "us-west-2"),
        ({"AWS_REGION": " ", "AWS_DEFAULT_REGION": "ap-northeast-1"}, "ap-northeast-1"),
    ],
)
def test_region_precedence_reaches_the_sagemaker_transport(
    env: dict[str, str], expected: str
) -> None:
    settings = AgentSettings.from_env({**DEPLOYED, **env})
    assert settings.region == expected
    transport = tts_transport(settings)
    assert isinstance(transport, SageMakerBidiTts) and transport.region == expected


@pytest.mark.parametrize(
    "env",
    [
        DEPLOYED,  # SageMaker TTS and Bedrock
        {"TTS_URL": "ws://127.0.0.1:1/x", "BEDROCK_MODEL_ID": "m"},  # Bedrock only
        {"TTS_ENDPOINT_NAME": "kokoro", "AGENT_TEXT_SOURCE": "replay"},  # SageMaker only
    ],
)
def test_no_region_is_refused_when_an_aws_service_is_used(env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"no AWS region configured: set AWS_REGION"):
        AgentSettings.from_env(env)


def test_a_local_run_needs_no_region() -> None:
    settings = AgentSettings.from_env(
        {"TTS_URL": "ws://127.0.0.1:1/x", "AGENT_TEXT_SOURCE": "replay"}
    )
    assert settings.region is None


def test_sagemaker_transport_constructor_finds_a_region_like_boto3(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`SageMakerBidiTts(name, region=...)` is also built by tools (bench, smoke check)."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ValueError, match="no AWS region configured"):
        SageMakerBidiTts("kokoro")
    (tmp_path / ".aws").mkdir()
    (tmp_path / ".aws" / "config").write_text("[default]\nregion = sa-east-1\n")
    assert SageMakerBidiTts("kokoro").region == "sa-east-1"  # the profile's, last
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert SageMakerBidiTts("kokoro").region == "eu-west-1"
    monkeypatch.setenv("AWS_REGION", "eu-north-1")
    assert SageMakerBidiTts("kokoro").region == "eu-north-1"
    assert SageMakerBidiTts("kokoro", region="us-east-1").region == "us-east-1"


def test_the_agent_process_refuses_to_start_without_a_region(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(DEPLOYED, HOME=str(tmp_path))
    env.update(HOST="127.0.0.1", PORT="0")
    done = subprocess.run(
        [sys.executable, "-m", "voice_agent"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,  # the old agent started and served: this would expire
    )
    assert done.returncode != 0
    assert "voice_agent: cannot start: no AWS region configured" in done.stderr
    assert "Traceback" not in done.stderr


DOCS = Path(__file__).resolve().parents[2] / "docs" / "agent.md"
LOCAL = {"AWS_REGION": "eu-west-1"}


def _sample(var: EnvVar, kind: type) -> str:
    """A valid value of the variable that is not its default."""
    if var.choices:
        return var.choices[-1]
    samples = {bool: "true", int: "7", float: "3.5", str: "x"}
    return samples[kind]


def test_the_environment_table_in_the_docs_is_generated() -> None:
    """`python -m voice_agent.settings` prints it; docs/agent.md has it between markers."""
    table = env_table()
    done = subprocess.run(
        [sys.executable, "-m", "voice_agent.settings"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, table + "\n")
    begin, end = "<!-- settings:begin -->\n", "\n<!-- settings:end -->"
    assert f"{begin}{table}{end}" in DOCS.read_text(encoding="utf-8"), (
        "docs/agent.md environment table is stale: run `.venv/bin/python -m "
        "voice_agent.settings` and paste its output between the markers"
    )


def test_every_declared_variable_sets_its_field() -> None:
    defaults = AgentSettings()
    for field, var, kind in declared_vars():
        if var.read is not None or var.parse is not None:
            continue  # region and origins: their own tests
        settings = AgentSettings.from_env({**LOCAL, var.names[0]: _sample(var, kind)})
        assert getattr(settings, field.name) != getattr(defaults, field.name), var.names[0]
        assert getattr(AgentSettings.from_env({**LOCAL, var.names[0]: ""}), field.name) == (
            getattr(defaults, field.name)
        ), f"{var.names[0]} set but empty keeps the default"


def test_a_bad_number_or_flag_is_refused_naming_the_variable() -> None:
    for _field, var, kind in declared_vars():
        if kind is str or var.read is not None or var.parse is not None:
            continue
        with pytest.raises(ValueError, match=f"^{var.names[0]} must be"):
            AgentSettings.from_env({**LOCAL, var.names[0]: "lots"})
        if var.at_least is not None:
            with pytest.raises(ValueError, match=f"{var.names[0]} must be at least"):
                AgentSettings.from_env({**LOCAL, var.names[0]: str(var.at_least - 1)})


def test_the_first_set_name_wins_and_an_alias_is_read() -> None:
    both = {**LOCAL, "TTS_VOICE": "af_sky", "AGENT_DEFAULT_VOICE": "jm_kumo"}
    assert AgentSettings.from_env(both).default_voice == "af_sky"
    assert AgentSettings.from_env({**LOCAL, "AGENT_DEFAULT_VOICE": "jm_kumo"}).default_voice == (
        "jm_kumo"
    )


def test_the_replay_file_is_read_for_replay_only(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("First answer.\n---\nSecond answer.\n", encoding="utf-8")
    env = {"AGENT_REPLAY_FILE": str(script), "AGENT_REPLAY_TEXT": "Given."}
    replay = AgentSettings.from_env({**env, "AGENT_TEXT_SOURCE": " Replay "})
    assert replay.replay_script == ("First answer.", "Second answer.")
    assert AgentSettings.from_env({**LOCAL, **env}).replay_script == ("Given.",)

"""Bad benchmark flags get clear errors before any server starts."""

from __future__ import annotations

import pytest

from bench.agent_ttfa import main as agent_ttfa_main
from bench.agent_ttfa import parse_rates
from bench.common import BenchError, sagemaker_transport
from bench.concurrency import parse_env, parse_levels
from bench.tts_ttfa import main as tts_ttfa_main


def test_levels_are_parsed_sorted_and_deduplicated() -> None:
    assert parse_levels("4,1,2,4") == [1, 2, 4]


@pytest.mark.parametrize("raw", ["", "1,x", "0,2", "-1"])
def test_bad_levels_are_refused(raw: str) -> None:
    with pytest.raises(BenchError, match="--levels"):
        parse_levels(raw)


def test_server_env_takes_only_kokoro_settings() -> None:
    assert parse_env(["KOKORO_SYNTH_WORKERS=2"]) == {"KOKORO_SYNTH_WORKERS": "2"}
    with pytest.raises(BenchError, match="KOKORO_NAME=VALUE"):
        parse_env(["PATH=/tmp"])
    with pytest.raises(BenchError, match="KOKORO_NAME=VALUE"):
        parse_env(["KOKORO_SYNTH_WORKERS"])


def test_sagemaker_transport_needs_an_endpoint_name() -> None:
    with pytest.raises(BenchError, match="--endpoint-name"):
        sagemaker_transport(None, None)


def test_sagemaker_transport_is_the_agents_and_calls_nothing_yet() -> None:
    # Built lazily: no AWS client, no credentials needed until a session opens.
    transport = sagemaker_transport("my-endpoint", "us-east-1")
    assert transport.name == "sagemaker"
    assert transport.endpoint_name == "my-endpoint"
    assert transport.region == "us-east-1"


def test_rates_are_checked() -> None:
    assert parse_rates("20,40,80") == [20.0, 40.0, 80.0]
    for raw in ("", "fast", "0", "-5"):
        with pytest.raises(BenchError, match="--rates"):
            parse_rates(raw)


def test_scripts_exit_2_with_a_message_on_bad_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert tts_ttfa_main(["--runs", "0"]) == 2
    assert "--runs must be at least 1" in capsys.readouterr().err
    assert tts_ttfa_main(["--tokens-per-s", "0"]) == 2
    assert "--tokens-per-s must be positive" in capsys.readouterr().err
    assert agent_ttfa_main(["--agent-url", "http://127.0.0.1:1", "--runtime-arn", "arn"]) == 2
    assert "not both" in capsys.readouterr().err

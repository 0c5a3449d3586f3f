"""The example bot (examples/pipecat_bot.py) end to end against the real local server."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest

from examples import pipecat_bot

pytestmark = pytest.mark.model


def test_example_bot_writes_the_answer_as_a_wav(server, tmp_path: Path, capsys) -> None:
    out = tmp_path / "bot.wav"
    assert pipecat_bot.main(["--url", server.ws, "--out", str(out), "--tokens-per-s", "80"]) == 0
    with wave.open(str(out)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        seconds = wav.getnframes() / wav.getframerate()
    assert seconds > 3  # three sentences of speech
    printed = capsys.readouterr().out
    assert "time to first audio" in printed and str(out) in printed


def test_example_bot_refuses_two_targets() -> None:
    with pytest.raises(SystemExit):
        pipecat_bot.parse_args(["--url", "ws://x", "--sagemaker-endpoint", "e"])

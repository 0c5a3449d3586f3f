"""Runs the atheris (libFuzzer) harness of the protocol layer for a bounded number of inputs.

libFuzzer exits the process on the first failure, so the harness runs in a subprocess; a
failing input is written to tmp_path and shown in the assertion message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fuzz
ROOT = Path(__file__).resolve().parents[2]
SEEDS = {
    "text": b'T{"type":"text","text":"Hi."}',
    "start": b'B{"type":"start","speed":1.5,"format":"mp3","sample_rate":16000,"request_id":"r"}',
    "utterance": b'T{"text":"x","voice":"v"}',
    "cancel": b'B{"type":"cancel"}',
}
RUNS = 300_000  # a few seconds; `make soak` style longer runs: pass -atheris_runs yourself


def test_protocol_layer_survives_coverage_guided_fuzzing(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, seed in SEEDS.items():
        (corpus / name).write_bytes(seed)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.atheris_protocol",
            f"-atheris_runs={RUNS}",
            f"-dict={ROOT / 'tests' / 'support' / 'protocol.dict'}",
            f"-artifact_prefix={tmp_path}/",
            "-seed=1",
            str(corpus),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    crashes = [p.read_bytes() for p in tmp_path.glob("crash-*")]
    assert result.returncode == 0 and not crashes, (crashes, result.stderr[-3000:])
    assert f"Done {RUNS}" in result.stderr

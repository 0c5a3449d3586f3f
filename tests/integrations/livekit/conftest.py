"""The real Kokoro server for the LiveKit plugin's tests: tests/conftest.py's `server`, or
(in a framework venv, `make test-frameworks`) the one KOKORO_TEST_SERVER_WS names, started
with the user voice file."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

# The SageMaker contract tests' environments (tests/support/sagemaker_contract.py).
from tests.support.sagemaker_contract import bare_aws_env, env_keys  # noqa: F401

EXTERNAL = os.environ.get("KOKORO_TEST_SERVER_WS")

if EXTERNAL:

    @pytest.fixture
    def server() -> SimpleNamespace:
        return SimpleNamespace(ws=EXTERNAL)

    @pytest.fixture
    def user_voice_server(server: SimpleNamespace) -> SimpleNamespace:
        return server  # started with the user voice file (tests/support/framework_venvs.py)

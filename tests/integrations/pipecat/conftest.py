"""Fixtures for the Pipecat integration: the real Kokoro server (real model, CPU) on loopback.

`server` / `make_server` / `service` come from tests/conftest.py and share one loaded model.
In a framework venv (`make test-frameworks`: only Pipecat, the integration and pytest) the
server runs from the repository's environment, with the user voice file, and
KOKORO_TEST_SERVER_WS names it.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

# The SageMaker contract tests' environments (tests/support/sagemaker_contract.py).
from tests.support.sagemaker_contract import bare_aws_env, env_keys  # noqa: F401

EXTERNAL = os.environ.get("KOKORO_TEST_SERVER_WS")


def ws_url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/invocations-bidirectional-stream"


if EXTERNAL:

    @pytest.fixture
    def server() -> SimpleNamespace:
        return SimpleNamespace(ws=EXTERNAL, port=urlsplit(EXTERNAL).port)

    @pytest.fixture
    def user_voice_server(server: SimpleNamespace) -> SimpleNamespace:
        return server  # started with the user voice file (tests/support/framework_venvs.py)

else:
    import dataclasses
    from collections.abc import Callable, Iterator

    from devkit.loopback import AppServer
    from kokoro_server.config import Settings
    from kokoro_server.serving.app import create_app
    from kokoro_server.serving.serve import uvicorn_options
    from kokoro_server.serving.synthesis import SynthesisService

    @pytest.fixture
    def server_on_port(
        base_settings: Settings, service: SynthesisService
    ) -> Iterator[Callable[[int], AppServer]]:
        """Starts the real server on a given port (to stop it and start another there)."""
        started: list[AppServer] = []

        def start(port: int) -> AppServer:
            settings = dataclasses.replace(base_settings, port=port)
            srv = AppServer(
                create_app(settings, service), port=port, **uvicorn_options(settings)
            ).start()
            started.append(srv)
            return srv

        yield start
        for srv in started:
            srv.stop()

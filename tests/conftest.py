"""Fixtures: a real uvicorn server on loopback, running the real Kokoro-82M model on CPU.

They live at the top of tests/ so the container, agent and devkit tests share one loaded
model (a session fixture defined in two conftest files would load it twice). A test that
uses them is marked `model` here, and one that uses the synthesized CDK app `synth`, so
`make test-fast` can leave both out without a list to keep in step.

The model is loaded once per test run and shared by every server the tests start, so tests
can start servers with different limits (busy, idle timeout) without paying the load again.
Each server runs in its own thread and event loop, exactly as uvicorn serves in production,
and the tests talk to it over real sockets with the `websockets` client.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kokoro_server.config import Settings
from kokoro_server.serving.synthesis import SynthesisService
from tests.support.botocore_models import share_loaded_models
from tests.support.servers import ThreadedServer

share_loaded_models()

MODEL_FIXTURES = {"service", "server", "make_server"}
SYNTH_FIXTURES = {"synthesized", "variant"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak-scale", type=int, default=1, help="multiplies the soak's tone-double counts"
    )


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & MODEL_FIXTURES:
            item.add_marker(pytest.mark.model)
        if fixtures & SYNTH_FIXTURES:
            item.add_marker(pytest.mark.synth)


@pytest.fixture(scope="session")
def base_settings() -> Settings:
    return Settings(host="127.0.0.1", intra_op_threads=2)


@pytest.fixture(scope="session")
def service(base_settings: Settings) -> Iterator[SynthesisService]:
    """The real model, loaded and warmed up once."""
    svc = SynthesisService(base_settings)
    svc.load()
    assert svc.ready, svc.failure
    yield svc
    svc.shutdown()


@pytest.fixture(scope="session")
def server(base_settings: Settings, service: SynthesisService) -> Iterator[ThreadedServer]:
    srv = ThreadedServer(base_settings, service).start()
    yield srv
    srv.stop()


@pytest.fixture
def make_server(
    base_settings: Settings, service: SynthesisService
) -> Iterator[Callable[..., ThreadedServer]]:
    """A fresh server sharing the loaded model, with some settings overridden."""
    started: list[ThreadedServer] = []

    def make(**overrides: Any) -> ThreadedServer:
        srv = ThreadedServer(dataclasses.replace(base_settings, **overrides), service).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()

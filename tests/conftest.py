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
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark.expression import Expression  # how `-m` is read; pytest is pinned

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


# Modules whose imports are heavy (LiveKit Agents 2-4 s, cfn-lint 2 s, aws-cdk-lib 1.5 s)
# and whose every test carries these markers: when `-m` leaves those markers out, as
# `make test-fast` does, they are not even imported (each xdist worker collects everything).
# When they are collected, every test in them must carry the markers, or the run stops (so
# this cannot drift).
WHOLLY_MARKED = {
    "integrations/livekit/test_livekit_tts.py": {"model"},
    **{
        f"stacks/test_{name}.py": {"synth"}
        for name in (
            "cfn_lint",
            "cli_synth",
            "deploy_checks",
            "guard_config_manifest",
            "iam_and_agent",
            "nag",
            "pause",
            "snapshots",
            "tts_stack",
            "weights_cache_asset",
        )
    },
}
TESTS = Path(__file__).parent


def _marked_wholly(path: Path) -> set[str] | None:
    try:
        return WHOLLY_MARKED.get(path.relative_to(TESTS).as_posix())
    except ValueError:
        return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    markers = _marked_wholly(collection_path)
    expression = config.getoption("markexpr")
    if (
        markers
        and expression
        and not Expression.compile(expression).evaluate(lambda name: name in markers)
    ):
        return True
    return None  # pytest decides


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & MODEL_FIXTURES:
            item.add_marker(pytest.mark.model)
        if fixtures & SYNTH_FIXTURES:
            item.add_marker(pytest.mark.synth)
        markers = _marked_wholly(item.path)
        missing = (markers or set()) - {mark.name for mark in item.iter_markers()}
        if missing:
            raise pytest.UsageError(
                f"{item.nodeid} lacks {sorted(missing)}: WHOLLY_MARKED in tests/conftest.py "
                "says every test in its module has them (or move the test elsewhere)"
            )


@pytest.fixture(scope="session")
def base_settings() -> Settings:
    # Two pytest-xdist workers on two cores: one inference thread each, not two threads each
    # fighting over both cores (onnxruntime's threads spin while they wait).
    threads = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    return Settings(host="127.0.0.1", intra_op_threads=threads)


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

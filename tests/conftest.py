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

import contextlib
import dataclasses
import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.mark.expression import Expression, ExpressionMatcher  # `-m`; pytest is pinned

from kokoro_server.config import Settings
from tests.support import heap
from tests.support.botocore_models import share_loaded_models

# The model's service and the test servers are imported by the fixtures that use them: the
# xdist controller reads this file before it starts any worker, and their imports (about 2 s
# of CPU) delayed every worker's start. The test modules import them as they are collected.
if TYPE_CHECKING:
    from kokoro_server.serving.synthesis import SynthesisService
    from tests.support.servers import ThreadedServer

share_loaded_models()

MODEL_FIXTURES = {"service", "server", "make_server", "user_voice_server"}
SYNTH_FIXTURES = {"synthesized", "variant"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak-scale", type=int, default=1, help="multiplies the soak's tone-double counts"
    )


# A module that marks all its tests with a module-level `pytestmark = pytest.mark.<name>`
# line is not even imported when `-m` leaves those markers out, as `make test-fast` does:
# each xdist worker collects everything, and many such modules import heavy frameworks
# (LiveKit Agents 2-4 s, cfn-lint 2 s, aws-cdk-lib 1.5 s, Pipecat, Playwright). Read from
# the line pytest itself applies to every test of the module, so it cannot drift.
_PYTESTMARK = re.compile(r"^pytestmark = (.+)$", re.MULTILINE)
_MARK = re.compile(r"pytest\.mark\.(\w+)")


def module_marks(path: Path) -> set[str]:
    """The markers a test module's `pytestmark` line puts on all its tests."""
    if path.suffix != ".py" or not path.name.startswith("test_"):
        return set()
    line = _PYTESTMARK.search(path.read_text(encoding="utf-8"))
    return set(_MARK.findall(line.group(1).split("#")[0])) if line else set()


def _carrying(markers: set[str]) -> ExpressionMatcher:
    """`-m`'s matcher for a test that carries exactly `markers` (a mark's arguments, as in
    `-m "slow(reason=x)"`, are not told apart)."""

    def matches(name: str, /, **kwargs: str | int | bool | None) -> bool:
        return name in markers

    return matches


def excludes_all(expression: str, markers: set[str]) -> bool:
    """Whether `-m expression` deselects every test carrying `markers`, whatever other
    markers a test adds (a `model` test in a `slow` module is still wanted by `-m model`)."""
    compiled = Expression.compile(expression)
    free = sorted(set(re.findall(r"[\w.]+", expression)) - markers - {"and", "or", "not"})
    for values in itertools.product((False, True), repeat=len(free)):
        extra = {name for name, on in zip(free, values, strict=True) if on}
        if compiled.evaluate(_carrying(markers | extra)):
            return False
    return True


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    expression = config.getoption("markexpr")
    markers = module_marks(collection_path) if expression else set()
    if markers and excludes_all(expression, markers):
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


def pytest_collection_finish(session: pytest.Session) -> None:
    heap.settle_after_collection()  # what collection imported lives as long as the run


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    heap.exit_without_a_last_collection()


@pytest.fixture(scope="session")
def base_settings() -> Settings:
    # pytest-xdist workers (three on two cores): one inference thread each, not two threads
    # each fighting over both cores (onnxruntime's threads spin while they wait).
    threads = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    return Settings(host="127.0.0.1", intra_op_threads=threads)


@pytest.fixture(scope="session")
def service(base_settings: Settings) -> Iterator[SynthesisService]:
    """The real model, loaded and warmed up once (with a memory of its calls that only the
    tests marked `replayable` use: tests/support/model_replay.py)."""
    from kokoro_server.serving.synthesis import SynthesisService
    from tests.support import model_replay

    svc = SynthesisService(base_settings)
    svc.load()
    assert svc.ready, svc.failure
    model_replay.install(svc)
    yield svc
    svc.shutdown()


@pytest.fixture(autouse=True)
def _replay_repeated_model_calls(request: pytest.FixtureRequest) -> Iterator[None]:
    """A `replayable` test that uses the model may be answered from the model's memory."""
    if not request.node.get_closest_marker("replayable") or not (
        set(request.fixturenames) & MODEL_FIXTURES
    ):
        yield
        return
    from tests.support import model_replay

    with model_replay.replay(request.getfixturevalue("service")):
        yield


@pytest.fixture(scope="session")
def server(base_settings: Settings, service: SynthesisService) -> Iterator[ThreadedServer]:
    from tests.support.servers import ThreadedServer

    with ThreadedServer(base_settings, service) as srv:
        yield srv


@pytest.fixture
def make_server(
    base_settings: Settings, service: SynthesisService
) -> Iterator[Callable[..., ThreadedServer]]:
    """A fresh server sharing the loaded model, with some settings overridden."""
    from tests.support.servers import ThreadedServer

    with contextlib.ExitStack() as started:  # stops every server made, at teardown

        def make(**overrides: Any) -> ThreadedServer:
            settings = dataclasses.replace(base_settings, **overrides)
            return started.enter_context(ThreadedServer(settings, service))

        yield make


@pytest.fixture(scope="session")
def user_voice_server(
    base_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ThreadedServer]:
    """The real model served with a user voice file beside the official voices
    (tests/support/user_voice.py), loaded the way a deployment loads its own."""
    from tests.support.servers import model_server
    from tests.support.user_voice import write_user_voice

    folder = tmp_path_factory.mktemp("user_voices")
    write_user_voice(folder)
    with model_server(dataclasses.replace(base_settings, user_voices_dir=str(folder))) as srv:
        yield srv

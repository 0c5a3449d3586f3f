"""Hardening fixtures. The real-model fixtures (`service`, `server`, `make_server`) come from
tests/conftest.py and are shared with the container tests; these add servers backed by the
tone test double (tone.py) for the runs that need hundreds of sessions or examples."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from devkit.tone import ToneSynthesisService
from kokoro_server.config import Settings
from tests.support.servers import ThreadedServer


@pytest.fixture(scope="session")
def tone_service(base_settings: Settings) -> Iterator[ToneSynthesisService]:
    """Test double: tone instead of the model, behind the real service's thread pool."""
    svc = ToneSynthesisService(base_settings)
    svc.load()
    yield svc
    svc.shutdown()


@pytest.fixture(scope="module")
def tone_server(
    base_settings: Settings, tone_service: ToneSynthesisService
) -> Iterator[ThreadedServer]:
    with ThreadedServer(base_settings, tone_service) as srv:
        yield srv


@pytest.fixture
def make_tone_server(base_settings: Settings) -> Iterator[Callable[..., ThreadedServer]]:
    """A fresh tone-double server with its own service (own delay) and settings overrides."""
    with contextlib.ExitStack() as started:  # at teardown each server stops, then its service

        def make(delay_s: float = 0.0, **overrides: Any) -> ThreadedServer:
            settings = dataclasses.replace(base_settings, **overrides)
            svc = ToneSynthesisService(settings, delay_s=delay_s)
            svc.load()
            started.callback(svc.shutdown)
            return started.enter_context(ThreadedServer(settings, svc))

        yield make
